-- PostgreSQL's copy of migrations/sqlite/0001_history.sql: same tables, columns, keys, seeded
-- quests and views. Two sets exist because each store runs its own sqlx migrator over its own
-- directory (a migration's checksum is its file's bytes) and the dialects differ: every SQLite
-- INTEGER is BIGINT here (SQLite integers are 64-bit and the Rust side decodes i64), REAL is
-- DOUBLE PRECISION, and PostgreSQL refuses a bare column outside GROUP BY (see `player_best`).
-- A change to one set needs the same change in the other, under the same file name.

-- The history: a projection of the replay files (which stay the authority).
-- `undercooked reindex` rebuilds every table but `sessions` from replay files alone.

CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,          -- random, non-secret (replay headers carry it)
    token_hash  TEXT NOT NULL UNIQUE,      -- SHA-256 of the token, hex; never the token
    name        TEXT NOT NULL,
    unlocked    BIGINT NOT NULL DEFAULT 1, -- highest campaign `order` this session may play
    created_at  BIGINT NOT NULL,           -- unix seconds
    last_seen   BIGINT NOT NULL
);

CREATE TABLE rounds (
    round_key      TEXT PRIMARY KEY,       -- "<room>-<round_no>-<start unix s>", the replay's stem
    room_code      TEXT NOT NULL,
    round_no       BIGINT NOT NULL,
    level_id       TEXT NOT NULL,
    seed           TEXT NOT NULL,          -- u64 as decimal text (BIGINT, like SQLite's integers, is signed)
    replay_path    TEXT NOT NULL,
    started_at     BIGINT NOT NULL,
    ended_at       BIGINT,                 -- null while the round runs or if it never ended
    result         TEXT,                   -- won / lost / aborted, null until the end
    score          BIGINT NOT NULL DEFAULT 0,
    target         BIGINT NOT NULL,
    stars          BIGINT NOT NULL DEFAULT 0,
    ticks          BIGINT NOT NULL DEFAULT 0,
    tick_hz        BIGINT NOT NULL,
    served         BIGINT NOT NULL DEFAULT 0,
    missed         BIGINT NOT NULL DEFAULT 0,
    wasted         BIGINT NOT NULL DEFAULT 0,
    lost_items     BIGINT NOT NULL DEFAULT 0,
    longest_streak BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE round_players (
    round_key     TEXT NOT NULL REFERENCES rounds(round_key) ON DELETE CASCADE,
    seat          BIGINT NOT NULL,
    session_id    TEXT NOT NULL,           -- sessions.id (may be unknown to a rebuilt database)
    name          TEXT NOT NULL,
    color         TEXT NOT NULL,
    score         BIGINT NOT NULL DEFAULT 0,
    dishes_served BIGINT NOT NULL DEFAULT 0,
    missed        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (round_key, seat)
);

CREATE TABLE events (
    round_key  TEXT NOT NULL REFERENCES rounds(round_key) ON DELETE CASCADE,
    tick       BIGINT NOT NULL,            -- the tick the event happened in
    n          BIGINT NOT NULL,            -- its place among the tick's events
    kind       TEXT NOT NULL,
    seat       BIGINT,                     -- the cook, when the event has one
    x          DOUBLE PRECISION NOT NULL,  -- tile units
    y          DOUBLE PRECISION NOT NULL,
    payload    TEXT NOT NULL,              -- the wire payload (short keys), JSON
    recipe     TEXT,                       -- a served order's recipe (history only, not on the wire)
    PRIMARY KEY (round_key, tick, n)       -- a batch written twice changes nothing
);
CREATE INDEX events_kind ON events(kind);

CREATE TABLE quests (
    id      TEXT PRIMARY KEY,
    kind    TEXT NOT NULL,                 -- how progress is folded (see docs/HISTORY.md)
    param   TEXT,                          -- e.g. the recipe of a serve quest
    target  BIGINT NOT NULL,
    title   TEXT NOT NULL
);

CREATE TABLE quest_progress (
    session_id   TEXT NOT NULL,
    quest_id     TEXT NOT NULL REFERENCES quests(id),
    progress     BIGINT NOT NULL DEFAULT 0,
    completed_at BIGINT,                   -- set once, the first time progress reaches target
    PRIMARY KEY (session_id, quest_id)
);

INSERT INTO quests (id, kind, param, target, title) VALUES
    ('soup_chef',       'serve_recipe', 'tomato_soup', 10, 'Serve 10 tomato soups'),
    ('salad_days',      'serve_recipe', 'salad',        5, 'Serve 5 salads'),
    ('firefighter',     'extinguish',   NULL,           3, 'Put out 3 fires'),
    ('dish_duty',       'wash',         NULL,          10, 'Wash 10 plates'),
    ('three_stars',     'win_stars',    '3',            1, 'Win a level with 3 stars'),
    ('on_a_roll',       'streak',       NULL,           5, 'Reach a streak of 5 in one round'),
    ('campaign_hero',   'campaign',     NULL,           7, 'Win every level of the campaign'),
    ('clean_run',       'clean_run',    NULL,           5, 'Serve 5 dishes in a row without a miss'),
    ('good_company',    'teammates',    NULL,           3, 'Play with 3 different teammates');

-- A leaderboard per level: each round's best score, won rounds first.
-- (`result = 'won'` is a boolean here; true sorts after false, so DESC puts wins first, as
-- SQLite's 1/0 does.)
CREATE VIEW leaderboard AS
SELECT level_id, round_key, room_code, score, stars, result, ticks, started_at
FROM rounds
WHERE result IS NOT NULL
ORDER BY level_id, (result = 'won') DESC, score DESC, ticks ASC;

-- Each player's best per level.
-- SQLite takes the bare `rp.name` from a row holding one of the group's maxima; PostgreSQL
-- refuses a column outside GROUP BY, so the name is picked explicitly and deterministically:
-- the one on the player's best-scoring round (ties: the latest round, then the round key).
-- A player who kept one name through the group gets that name on both backends.
CREATE VIEW player_best AS
SELECT rp.session_id,
       (ARRAY_AGG(rp.name ORDER BY r.score DESC, r.started_at DESC, r.round_key DESC))[1] AS name,
       r.level_id,
       MAX(r.score) AS best_score,
       MAX(CASE WHEN r.result = 'won' THEN r.stars ELSE 0 END) AS best_stars,
       COUNT(*) AS rounds
FROM round_players rp JOIN rounds r ON r.round_key = rp.round_key
WHERE r.result IS NOT NULL
GROUP BY rp.session_id, r.level_id;
