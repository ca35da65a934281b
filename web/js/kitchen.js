// What your cook is about to touch, and why a press was refused, in words. Pure functions
// of the layout and a merged view, so the highlight follows the sim's own rule: the target
// of a press is the station on the tile next to the cook's tile in its facing direction
// (docs/GAME.md, "Cooks"), the cook's tile being `floor` of its position.

import { recipe } from './recipes.js';

/** Facing 0-3 (up, right, down, left) as a tile step. */
export const FACE = [[0, -1], [1, 0], [0, 1], [-1, 0]];

/**
 * The tile a cook at (x, y) (tiles, or 1/1000 tile with `unit` 1000) facing `f` would act
 * on: its own tile plus the facing step.
 */
export function facedTile(x, y, f, unit = 1) {
  const [dx, dy] = FACE[f & 3];
  return { x: Math.floor(x / unit) + dx, y: Math.floor(y / unit) + dy };
}

/** The layout's station on tile (x, y), or null (`stations` are the layout's or a frame's `st`). */
export function stationAt(stations, x, y) {
  for (const s of stations) if (s.x === x && s.y === y) return s;
  return null;
}

/** The recipe id a soup item (`soup_tomato`) or a dish item (`dish_garden_salad`) stands for. */
export function recipeOfItem(item) {
  if (!item) return null;
  if (item.startsWith('dish_')) return item.slice(5);
  if (item.startsWith('soup_') && item !== 'soup_burnt') return `${item.slice(5)}_soup`;
  return null;
}

/** The glyph letter of a dish or soup item, or null. */
export function glyphOf(item) {
  const id = recipeOfItem(item);
  return id ? recipe(id).glyph : null;
}

const PLAIN = {
  no_station: 'nothing here',
  hands_full: 'hands full',
  wrong_item: 'can\u2019t use that here',
  no_order: 'no order wants this',
  blocked: 'on fire',
  busy: 'someone is using it',
  stunned: 'you are stunned',
};

/**
 * A denied press in plain words. `station` is the frame's `st` entry the press was aimed at
 * (or null), `held` what the cook held (`h`), for the reasons whose words depend on them.
 */
export function deniedWords(reason, station = null, held = null) {
  if (reason === 'wrong_item' && station) {
    const g = station.g || '';
    switch (station.k) {
      case 'stove':
        if (held && held.endsWith('_raw')) return 'chop it first';
        if (held && held.endsWith('_chopped')) return g.startsWith('soup_') || station.s === 'working' ? 'pot is full' : 'wrong ingredient';
        if (held && held.startsWith('plate')) return g.startsWith('soup_') ? 'plate is not clean and empty' : 'soup is not ready';
        return 'nothing to take';
      case 'bin':
        return held ? 'a plate stays in your hands' : 'nothing to throw away';
      case 'serve':
        return 'only a finished dish';
      case 'sink':
        return held ? 'only plates go in' : 'no plate here';
      case 'chop_board':
      case 'prep':
        return held ? 'those don\u2019t go together' : 'nothing to pick up';
      case 'spawn_shelf':
        return 'hands full';
      default:
        break;
    }
  }
  return PLAIN[reason] || reason || 'no';
}
