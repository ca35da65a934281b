//! Cart loops: waypoints on floor tiles, joined by axis-aligned floor runs, no two carts
//! sharing a tile (so a cart's wire identity, kind and position, stays unique), at most
//! `MAX_CARTS` carts of at most `MAX_WAYPOINTS` waypoints (every frame carries every cart).

use super::{Ctx, LevelError, MAX_CARTS, MAX_WAYPOINTS};
use crate::sim::grid::{Grid, Tile};
use toml::Spanned;

pub(super) fn parse_carts(
    ctx: &Ctx,
    grid: &Grid,
    carts: &[Spanned<Vec<Spanned<[i64; 2]>>>],
) -> Result<Vec<Vec<(u16, u16)>>, LevelError> {
    let mut out: Vec<Vec<(u16, u16)>> = Vec::new();
    let mut used = vec![false; grid.width() as usize * grid.height() as usize];
    for (n, cart) in carts.iter().enumerate() {
        if n == MAX_CARTS {
            return Err(ctx.span(
                cart.span(),
                format!(
                    "a level has at most {MAX_CARTS} carts: this is cart {} of {}",
                    n + 1,
                    carts.len()
                ),
            ));
        }
        let wps = cart.get_ref();
        if wps.len() < 2 {
            return Err(ctx.span(cart.span(), "a cart needs at least 2 waypoints"));
        }
        if let Some(wp) = wps.get(MAX_WAYPOINTS) {
            return Err(ctx.span(
                wp.span(),
                format!(
                    "a cart has at most {MAX_WAYPOINTS} waypoints: this is waypoint {} of {}",
                    MAX_WAYPOINTS + 1,
                    wps.len()
                ),
            ));
        }
        let mut path = Vec::new();
        for wp in wps {
            let [x, y] = *wp.get_ref();
            let on_floor = x >= 0
                && y >= 0
                && x < grid.width() as i64
                && y < grid.height() as i64
                && grid.tile(x as i32, y as i32) == Tile::Floor;
            if !on_floor {
                return Err(ctx.span(
                    wp.span(),
                    format!("cart waypoint [{x}, {y}] is not a floor tile"),
                ));
            }
            path.push((x as u16, y as u16));
        }
        let mut tiles_of_cart = Vec::new();
        for i in 0..path.len() {
            let (a, b) = (path[i], path[(i + 1) % path.len()]);
            if a.0 != b.0 && a.1 != b.1 {
                return Err(ctx.span(
                    wps[(i + 1) % wps.len()].span(),
                    format!(
                        "cart run from [{}, {}] to [{}, {}] is not axis-aligned",
                        a.0, a.1, b.0, b.1
                    ),
                ));
            }
            if a == b {
                return Err(ctx.span(
                    wps[(i + 1) % wps.len()].span(),
                    "cart waypoints must differ from the one before",
                ));
            }
            let (mut x, mut y) = (a.0 as i32, a.1 as i32);
            loop {
                if grid.tile(x, y) != Tile::Floor {
                    return Err(ctx.span(
                        wps[i].span(),
                        format!("cart run crosses [{x}, {y}], which is not floor"),
                    ));
                }
                tiles_of_cart.push(grid.index(x as u16, y as u16));
                if (x, y) == (b.0 as i32, b.1 as i32) {
                    break;
                }
                x += (b.0 as i32 - x).signum();
                y += (b.1 as i32 - y).signum();
            }
        }
        // Two carts never share a tile: their wire identity (kind + position) stays unique.
        for &t in &tiles_of_cart {
            if used[t] && !out.is_empty() {
                return Err(ctx.span(
                    cart.span(),
                    "cart paths must not share tiles with another cart",
                ));
            }
        }
        for t in tiles_of_cart {
            used[t] = true;
        }
        out.push(path);
    }
    Ok(out)
}
