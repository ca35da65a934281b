-- Finished rounds' replay files, shared by every node of a cluster (PostgreSQL only: on
-- SQLite the files in the data folder are the only copy). A node uploads a round's file
-- when the round ends (the local file stays its write-ahead log while it plays), and at
-- start every local file the table does not hold yet. Keyed by the round key of the file's
-- header; a copy of the same round (same `identity`) that is longer replaces a shorter one,
-- anything else under a taken key is refused.
CREATE TABLE replay_files (
    round_key   TEXT PRIMARY KEY,
    -- XXH3-64 of the file's header, hex (as `rounds.identity`).
    identity    TEXT NOT NULL,
    size        BIGINT NOT NULL CHECK (size = octet_length(bytes)),
    bytes       BYTEA NOT NULL,
    -- Unix seconds, on the database's clock.
    uploaded_at BIGINT NOT NULL
);
-- A replay's frames are zstd already: stored out of line without a second compression.
ALTER TABLE replay_files ALTER COLUMN bytes SET STORAGE EXTERNAL;
