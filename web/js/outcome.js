// What the results screen says about a finished round, as pure functions (tested in
// web/test/outcome.test.mjs): the round's clock by one rule, and where "Next level" goes
// and why.
//
// The clock: the time left is floored to the second and the time used is the rest of the
// limit, so the two always add up to it ("1:09 of 2:30 · 1:21 left"), and a star's
// threshold is compared with the same floored figure the screen shows.
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
