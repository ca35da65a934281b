// The delta merge, exactly as the protocol says (docs/PROTOCOL.md, "The snap body"):
// a full frame replaces the view; a delta copies the scalars and `e`, then upserts each
// entry of `d.<kind>` by its identity key and drops the tombstones (`gone: true`).
// The same rules as the server's own `wire::merge`, which the Rust tests check.

/** The identity keys of each entity kind. */
export const IDENTITY = Object.freeze({
  p: ['i'],
  st: ['k', 'x', 'y'],
  o: ['id'],
  hz: ['t', 'x', 'y'],
});

const SCALARS = ['t', 's', 'tgt', 'tl', 'e'];

/** Whether two entities of a kind are the same one (every identity key present and equal). */
export function sameIdentity(a, b, keys) {
  return keys.every((k) => a[k] !== undefined && a[k] === b[k]);
}

/**
 * Applies one `snap` body to the merged view and returns the new view (a delta patches a
 * copy: the view passed in is left as it was). Throws an Error naming what is malformed.
 */
export function applyFrame(merged, frame) {
  if (frame === null || typeof frame !== 'object') throw new Error('a frame is not an object');
  if (typeof frame.full !== 'boolean') throw new Error('a frame has no boolean `full`');
  if (frame.full) return frame;
  if (!merged) throw new Error('a delta arrived before any full frame');
  if (!frame.d || typeof frame.d !== 'object') throw new Error('a delta frame has no `d` object');
  const next = { ...merged };
  for (const k of SCALARS) if (frame[k] !== undefined) next[k] = frame[k];
  for (const [kind, entries] of Object.entries(frame.d)) {
    const keys = IDENTITY[kind];
    if (!keys) throw new Error(`delta kind \`${kind}\` is unknown`);
    if (!Array.isArray(entries)) throw new Error(`d.${kind} is not an array`);
    const list = Array.isArray(next[kind]) ? next[kind].slice() : [];
    for (const entry of entries) {
      const at = list.findIndex((e) => sameIdentity(e, entry, keys));
      if (entry.gone === true) {
        if (at >= 0) list.splice(at, 1);
      } else if (at >= 0) {
        list[at] = entry;
      } else {
        list.push(entry);
      }
    }
    next[kind] = list;
  }
  return next;
}

/** A view's entities keyed by identity (for comparing two views whatever their order). */
export function keyed(view) {
  const out = { t: view.t, s: view.s, tgt: view.tgt, tl: view.tl };
  for (const [kind, keys] of Object.entries(IDENTITY)) {
    const m = {};
    for (const e of view[kind] || []) m[keys.map((k) => JSON.stringify(e[k])).join('|')] = e;
    out[kind] = m;
  }
  return out;
}
