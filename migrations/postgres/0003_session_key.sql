-- PostgreSQL's copy of migrations/sqlite/0003_session_key.sql (see 0001's header for why
-- there are two sets).

-- Tokens are stored as HMAC-SHA-256(session key, SHA-256(token)) instead of SHA-256(token),
-- so a copy of the database alone cannot test a guessed token (the key is in the data dir).
-- Rows written before this migration hold the plain SHA-256 (`hash_scheme` 1); the server
-- rehashes them under its key when it opens the history (no token is needed for that:
-- the keyed hash is taken over the SHA-256).
ALTER TABLE sessions ADD COLUMN hash_scheme BIGINT NOT NULL DEFAULT 1;
