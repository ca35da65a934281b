-- Several nodes over one database: each node's registration and lease, and the directory of
-- the rooms they hold. Every read of the directory joins on a live lease (`lease_until`,
-- on the database's clock), so a dead node's rooms leave it by construction.
CREATE TABLE nodes (
    id            TEXT PRIMARY KEY,         -- stable across restarts (default: its internal address)
    epoch         BIGINT NOT NULL,          -- one more at every start
    public_ws     TEXT NOT NULL,            -- where players open sockets: ws://host:port
    internal_http TEXT NOT NULL,            -- where other nodes forward joins: http://host:port
    lease_until   TIMESTAMPTZ NOT NULL,     -- renewed every 2 s, valid 10 s
    draining      BOOLEAN NOT NULL DEFAULT FALSE,
    rooms         BIGINT NOT NULL DEFAULT 0,
    sockets       BIGINT NOT NULL DEFAULT 0,
    build         TEXT NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One row per room a node holds (its code is claimed here before the room opens, so codes
-- are unique across the cluster), rewritten at most once a second while it changes, and
-- deleted when the room closes. A dead node's rows stay, unseen (no live lease), and their
-- codes are not claimed again until an hour after their last update.
CREATE TABLE rooms_live (
    code        TEXT PRIMARY KEY,
    node_id     TEXT NOT NULL,
    epoch       BIGINT NOT NULL,
    state       TEXT NOT NULL,              -- lobby / countdown / playing / results / closed
    level_id    TEXT,
    seated      BIGINT NOT NULL DEFAULT 0,
    spectators  BIGINT NOT NULL DEFAULT 0,
    open_seats  BIGINT NOT NULL DEFAULT 0,
    updated     TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX rooms_live_node ON rooms_live (node_id, epoch);
