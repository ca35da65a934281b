// What the results screen says about a finished round, as pure functions (tested in
// web/test/outcome.test.mjs): the round's clock by one rule, and where "Next level" goes
// and why.
//
// The clock: the time left is floored to the second and the time used is the rest of the
// limit, so the two always add up to it ("1:09 of 2:30 · 1:21 left"), and a star's
// threshold is compared with the same floored figure the screen shows.
//
// A replay's end: a recording with no `round_end` was cut before its round's end — the
// round is still being played, or its server stopped — and says so, rather than "ends here".
//
// Where next: the server sends each viewer the level its Next press starts (`unlocked`, the
// next level when the round was won and the viewer has it, else the level played); the
// screen names it, and when it is the same level says why: the round was lost, it was the
// last level, or the next one is still locked for this viewer (the unlock goes to the cooks
// who did a piece of work: docs/GAME.md, "Credit for a round").

/** `{left, used}` in whole seconds for a round of `limit` seconds with `timeLeft` left. */
export function roundClock(limit, timeLeft) {
  const whole = Math.floor(limit);
  const left = Math.min(whole, Math.max(0, Math.floor(timeLeft + 1e-9)));
  return { left, used: whole - left };
}

/** The replay viewer's last line: the round's verdict from its `round_end` event (`o`,
 * with `res`, `sc`, `tgt`, `stars`), else what the last frame `view` shows, saying whether
 * the recording holds the round's end (`ended`, the replay API's flag). */
export function replayEnd(o, view, ended) {
  if (!o) {
    const score = `score ${view.s} / ${view.tgt}`;
    return ended
      ? `The recording ends here: ${score}.`
      : `The recording stops before the round's end (it may still be playing): ${score} so far.`;
  }
  const n = o.stars || 0;
  const starsText = n ? ` \u00b7 ${'\u2605'.repeat(n)}${'\u2606'.repeat(Math.max(0, 3 - n))} (${n} star${n === 1 ? '' : 's'})` : '';
  return `Round ${o.res || 'over'} \u00b7 score ${o.sc ?? view.s} / ${o.tgt ?? view.tgt}${starsText}`;
}

/** Whole seconds as m:ss. */
export function mss(s) {
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The Next button and the sentence under it. `levels` is `/api/levels`' list, `played` the
 * level's id, `won` the verdict, `dest` the id the server named (`round.unlocked`).
 * `{label, note, go}`: `go` is the level id a press starts.
 */
export function whereNext(levels, played, won, dest) {
  const lv = levels.find((l) => l.id === played);
  const to = levels.find((l) => l.id === dest) || lv;
  const name = (l) => `Level ${l.order}: ${l.name}`;
  if (!lv) return { label: won ? 'Play again' : 'Retry', note: '', go: played };
  if (to && to.id !== lv.id) return { label: 'Next level', note: `Next: ${name(to)}.`, go: to.id };
  if (!won) return { label: 'Retry', note: `Retry plays ${name(lv)} again.`, go: lv.id };
  const next = levels.filter((l) => l.order > lv.order).sort((a, b) => a.order - b.order)[0];
  if (!next) {
    return { label: 'Play again', note: `That was the last level: Play again plays ${name(lv)} once more.`, go: lv.id };
  }
  return {
    label: 'Retry',
    note: `${name(next)} is still locked for you: it opens when you win a round in which you did a piece of work yourself (chop, serve, wash a plate or put out a fire).`,
    go: lv.id,
  };
}
