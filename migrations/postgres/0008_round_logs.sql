-- The live log of each round being played on a node, streamed here a room-second at a time
-- (off the tick path) so that when the node's lease lapses another node can adopt the
-- round: it joins the chunks from offset 0, re-folds the round and goes on (docs/SCALING.md).
-- `start` is the byte offset of `bytes` in the round's replay file. A round's rows are
-- deleted once its whole file is stored in `replay_files`.
CREATE TABLE round_logs (
    round_key  TEXT NOT NULL,
    start      BIGINT NOT NULL,
    bytes      BYTEA NOT NULL,
    at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (round_key, start)
);
