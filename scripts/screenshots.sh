#!/bin/sh
# Takes the pictures in docs/screenshots/ from the browser tests that draw them: every screen
# (tests/live/e2e.rs), every campaign level (tests/live/tour.rs), the phone
# (tests/live/phone.rs) and the kitchens of tests/live/you_cook.rs, then copies them over.
# Needs chromium and chromedriver (.ci/run installs them). Usage: scripts/screenshots.sh
set -eu
cd "$(dirname "$0")/.."
rm -rf target/e2e
CI=1 cargo test --test live e2e:: -- --test-threads 1
CI=1 cargo test --test live tour::
CI=1 cargo test --test live phone::
CI=1 cargo test --test live you_cook::
for f in target/e2e/*.png; do
  cp "$f" docs/screenshots/
done
ls -l docs/screenshots/
