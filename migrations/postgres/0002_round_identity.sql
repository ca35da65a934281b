-- PostgreSQL's copy of migrations/sqlite/0002_round_identity.sql (see 0001's header for why
-- there are two sets).

-- A round's identity (XXH3-64 of its replay header, hex): `reindex` indexes a file under the
-- round key its header gives, and only when the round already under that key (if any) has
-- the same identity. Rows written before this migration have none; the first reindex or
-- live write of their round fills it in.
ALTER TABLE rounds ADD COLUMN identity TEXT;
