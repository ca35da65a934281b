-- PostgreSQL's own floor for the history's event insert (docs/PERFORMANCE.md, "The history"):
-- 500,000 rows into a copy of `events` (migrations/postgres/0001_history.sql) by the server
-- alone, no client, with and without the foreign key to `rounds`.
-- usage: psql -h HOST -p PORT -U postgres -f scripts/pg-insert-floor.sql   (drops and makes
--        the database `insert_floor`)
\timing on
DROP DATABASE IF EXISTS insert_floor;
CREATE DATABASE insert_floor;
\c insert_floor
CREATE TABLE rounds (round_key TEXT PRIMARY KEY);
INSERT INTO rounds SELECT 'R' || g FROM generate_series(0, 99) g;
CREATE TABLE with_key (round_key TEXT NOT NULL REFERENCES rounds(round_key) ON DELETE CASCADE,
  tick BIGINT NOT NULL, n BIGINT NOT NULL, kind TEXT NOT NULL, seat BIGINT,
  x DOUBLE PRECISION NOT NULL, y DOUBLE PRECISION NOT NULL, payload TEXT NOT NULL, recipe TEXT,
  PRIMARY KEY (round_key, tick, n));
CREATE INDEX with_key_kind ON with_key(kind);
CREATE TABLE without_key (LIKE with_key INCLUDING ALL);
\echo with the foreign key:
INSERT INTO with_key SELECT 'R' || (g % 100), g / 100, 0, 'chopped', 1, 1.5, 2.5,
  '{"k":"chopped","s":1,"x":1.5}', NULL FROM generate_series(0, 499999) g
  ON CONFLICT DO NOTHING RETURNING round_key \g /dev/null
\echo without it:
INSERT INTO without_key SELECT 'R' || (g % 100), g / 100, 0, 'chopped', 1, 1.5, 2.5,
  '{"k":"chopped","s":1,"x":1.5}', NULL FROM generate_series(0, 499999) g
  ON CONFLICT DO NOTHING RETURNING round_key \g /dev/null
\c postgres
DROP DATABASE insert_floor;
