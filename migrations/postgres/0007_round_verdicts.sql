-- The janitor's verdicts: a round it recorded `aborted` because its node's lease lapsed,
-- with that node and its epoch. No replay file can hold this (the node stopped before it
-- wrote the round's end), so `reindex --from-db` reads it here to rebuild the same
-- result, and a node that comes back to a room it still holds opens the round again.
CREATE TABLE round_verdicts (
    round_key  TEXT PRIMARY KEY REFERENCES rounds (round_key) ON DELETE CASCADE,
    result     TEXT NOT NULL,             -- aborted
    node_id    TEXT NOT NULL,             -- the node whose lease lapsed
    epoch      BIGINT NOT NULL,
    at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
