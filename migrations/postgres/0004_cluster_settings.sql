-- Settings every node of a cluster must agree on, kept in the database they share.
-- `session_key_fingerprint`: identifies the session key the tokens are hashed under (never
-- the key); the first node to start stores it, and a node with another key refuses to start.
CREATE TABLE cluster_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
