//! A phone (issue 34's polish): at 390×844 with touch, level 1 is drawn whole, the stick and
//! Act have a strip of their own under the kitchen (they cover no station, the serving
//! window included), the kitchen sits right under the orders, and the HUD keeps to one
//! line with nothing cut off.

use crate::browser;
use crate::server;

use browser::Browser;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_the_kitchen_fits_above_the_controls_and_the_hud_keeps_to_a_line() {
    if !browser::available() {
        return;
    }
    let mut server = server::start_campaign(&[]).await;
    let b = Browser::open_phone(&format!("http://{}", server.addr), 390, 844).await;
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    assert_eq!(
        b.eval("matchMedia('(pointer: coarse)').matches").await,
        true,
        "a touch screen"
    );
    b.fill("Name", "Ann").await;
    b.click("Play solo").await;
    b.wait_screen("lobby", 10).await;
    b.wait_until("(() => { const s = document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue; return s && !s.disabled; })()", 10)
        .await;
    b.click("Start").await;
    b.wait_screen("game", 10).await;
    b.wait_until(
        "window.__uc && window.__uc.camera && window.__game && window.__game.drawnMine",
        15,
    )
    .await;
    // Level 1 (11×7) is drawn whole: no camera, so every station is on screen ...
    assert_eq!(
        b.eval("window.__uc.camera.follows").await,
        false,
        "level 1 fits"
    );
    // ... and nothing covers it: the controls sit below the kitchen's canvas.
    let gap = b
        .eval("(() => { const c = document.getElementById('kitchen').getBoundingClientRect(); const t = document.querySelector('.touch').getBoundingClientRect(); const a = document.querySelector('.touch .act').getBoundingClientRect(); return [t.top - c.bottom, a.top - c.bottom, a.bottom <= innerHeight]; })()")
        .await;
    assert!(
        gap[0].as_f64().unwrap_or(-1.0) >= 0.0,
        "the strip starts under the kitchen: {gap}"
    );
    assert!(
        gap[1].as_f64().unwrap_or(-1.0) >= 0.0,
        "Act is under the kitchen: {gap}"
    );
    assert_eq!(gap[2], true, "Act is on screen: {gap}");
    // The HUD is one line (it wrapped to three at 390 px): under two lines' height.
    let hud = b
        .eval("(() => { const h = document.querySelector('.hud'); const s = getComputedStyle(h); return [h.getBoundingClientRect().height, parseFloat(s.fontSize), parseFloat(s.paddingTop) + parseFloat(s.paddingBottom)]; })()")
        .await;
    let (height, font, pad) = (
        hud[0].as_f64().unwrap_or(99.0),
        hud[1].as_f64().unwrap_or(16.0),
        hud[2].as_f64().unwrap_or(0.0),
    );
    assert!(
        height < 2.2 * font + pad,
        "the HUD is {height} px tall at a {font} px font"
    );
    // Nothing in the HUD is cut off at the right: it needs no scrolling to be read whole.
    let hud = b
        .eval("(() => { const h = document.querySelector('.hud'); const w = h.querySelector('.who').getBoundingClientRect(); return [h.scrollWidth, h.clientWidth, w.right, innerWidth]; })()")
        .await;
    assert!(
        hud[0].as_f64() <= hud[1].as_f64() && hud[2].as_f64() <= hud[3].as_f64(),
        "the HUD overflows (scroll width, width, your seat's right edge, window): {hud}"
    );
    // The kitchen sits right under the orders strip: no tall empty band above it.
    let band = b
        .eval("window.__uc.kitchenBox.top - window.__uc.kitchenBox.ordersBottom")
        .await;
    assert!(
        band.as_f64().unwrap_or(99.0) <= 8.0,
        "{band} px of nothing between the orders and the kitchen"
    );
    b.screenshot("phone-level1").await;
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
}
