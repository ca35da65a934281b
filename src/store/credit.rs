//! Who has contributed to a round so far, kept as its work rows arrive, so a serve's team
//! credit costs no read of the history.
//!
//! A seat contributed at a serve when it has `WORK_TO_COUNT` work rows at or before the
//! serve (`quests`). Only the earliest `WORK_TO_COUNT` positions of each seat's work decide
//! that, so that is all a round keeps here. A round is read from the history once, the
//! first time a serve needs it (after the group's rows were inserted, so the read counts
//! them); from then on the rows the same writer inserts keep it up to date. Reading a
//! round's work rows for every group instead grew with the round and held the write chain
//! to 27,800 events a second.
//!
//! What a transaction learned is staged, and kept only when it commits (`commit`); a
//! rolled-back group leaves nothing behind (`discard`). A round is forgotten when its end
//! is written, and everything is forgotten past `MAX_ROUNDS` (it is read again when next
//! needed): the history stays the truth, this is its summary.

use super::db::{Db, args};
use super::rows::{EventRow, RoundMeta};
use std::collections::BTreeMap;

/// The event kinds that are a seat's own finished work (each names its cook).
pub const WORK_KINDS: [&str; 4] = ["chopped", "served", "washed", "extinguished"];

/// Pieces of work a seat must finish in a round to share in its credit: one. A cook who only
/// stood by has none, and no stray press reaches it (a press that finishes nothing is no
/// row); a new player who manages one chop beside bots has played, and is credited.
pub const WORK_TO_COUNT: u32 = 1;

/// Whether an event of this kind is a piece of its cook's own work.
pub fn is_work(kind: &str) -> bool {
    WORK_KINDS.contains(&kind)
}

/// Rounds kept at most; past it all are dropped and read again as needed.
const MAX_ROUNDS: usize = 4096;

/// A round's work rows (every one, for the first read), in the history.
pub(super) const WORK_ROWS_SQL: &str =
    "SELECT seat, tick, n FROM events WHERE round_key = $1 AND seat IS NOT NULL
     AND kind IN ('chopped', 'served', 'washed', 'extinguished')";

/// Each seat's earliest `WORK_TO_COUNT` work positions (tick, n), ascending.
type Earliest = BTreeMap<u8, Vec<(u32, u32)>>;

/// The rounds' contributions known to one writer (the write chain's, or one reindexed file's).
#[derive(Default)]
pub struct Credit {
    settled: BTreeMap<String, Earliest>,
    staged: BTreeMap<String, Earliest>,
}

impl Credit {
    /// Brings the rounds of `fresh` (rows just inserted, in this transaction) up to date:
    /// a round with a serve among them is read once if unknown; a known round takes the
    /// new work rows.
    pub async fn update(
        &mut self,
        conn: &mut impl Db,
        fresh: &[(&RoundMeta, &EventRow)],
    ) -> sqlx::Result<()> {
        for (meta, e) in fresh {
            let key = meta.round_key.as_str();
            if self.known(key) {
                if let (Some(seat), true) = (e.seat, is_work(e.kind)) {
                    self.stage(key);
                    if let Some(round) = self.staged.get_mut(key) {
                        keep_earliest(round, seat, (e.tick, e.n));
                    }
                }
            } else if e.kind == "served" {
                let rows: Vec<(i64, i64, i64)> = conn.fetch_all(WORK_ROWS_SQL, &args![key]).await?;
                let mut round = Earliest::new();
                for (seat, tick, n) in rows {
                    if let (Ok(seat), Ok(tick), Ok(n)) =
                        (u8::try_from(seat), u32::try_from(tick), u32::try_from(n))
                    {
                        keep_earliest(&mut round, seat, (tick, n));
                    }
                }
                // Read after the insert: it already counts this round's fresh rows.
                self.staged.insert(key.to_string(), round);
            }
        }
        Ok(())
    }

    /// The seats of `round` that contributed up to and with (`tick`, `n`), in seat order
    /// (after `update` with the rows up to there).
    pub fn contributed(&self, round: &str, (tick, n): (u32, u32)) -> Vec<u8> {
        let Some(earliest) = self.staged.get(round).or_else(|| self.settled.get(round)) else {
            return Vec::new();
        };
        earliest
            .iter()
            .filter(|(_, at)| {
                at.len() >= WORK_TO_COUNT as usize
                    && at.last().is_some_and(|last| *last <= (tick, n))
            })
            .map(|(seat, _)| *seat)
            .collect()
    }

    /// The transaction committed: what it learned is kept.
    pub fn commit(&mut self) {
        let staged = std::mem::take(&mut self.staged);
        self.settled.extend(staged);
        if self.settled.len() > MAX_ROUNDS {
            self.settled.clear();
        }
    }

    /// The transaction rolled back: what it learned is dropped.
    pub fn discard(&mut self) {
        self.staged.clear();
    }

    /// A round whose end was written: its credit is settled, nothing more arrives.
    pub fn forget(&mut self, round: &str) {
        self.settled.remove(round);
        self.staged.remove(round);
    }

    fn known(&self, round: &str) -> bool {
        self.staged.contains_key(round) || self.settled.contains_key(round)
    }

    /// Copies a settled round into the transaction's stage before it changes.
    fn stage(&mut self, round: &str) {
        if !self.staged.contains_key(round) {
            let copy = self.settled.get(round).cloned().unwrap_or_default();
            self.staged.insert(round.to_string(), copy);
        }
    }
}

/// Adds a work position to a seat's earliest ones (once: a row given twice is one row).
fn keep_earliest(round: &mut Earliest, seat: u8, at: (u32, u32)) {
    let list = round.entry(seat).or_default();
    if let Err(i) = list.binary_search(&at) {
        list.insert(i, at);
        list.truncate(WORK_TO_COUNT as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_counts_from_its_earliest_work_whatever_the_order_it_arrives_in() {
        let mut round = Earliest::new();
        keep_earliest(&mut round, 2, (9, 0));
        keep_earliest(&mut round, 2, (3, 1));
        keep_earliest(&mut round, 2, (3, 1));
        keep_earliest(&mut round, 0, (12, 0));
        let mut credit = Credit::default();
        credit.settled.insert("R".into(), round);
        assert_eq!(credit.contributed("R", (3, 0)), Vec::<u8>::new());
        assert_eq!(credit.contributed("R", (3, 1)), vec![2]);
        assert_eq!(credit.contributed("R", (12, 0)), vec![0, 2]);
        assert_eq!(credit.contributed("other", (99, 0)), Vec::<u8>::new());
    }

    #[test]
    fn a_rolled_back_transaction_leaves_the_settled_credit_as_it_was() {
        let mut credit = Credit::default();
        credit.settled.insert("R".into(), Earliest::new());
        credit.stage("R");
        if let Some(r) = credit.staged.get_mut("R") {
            keep_earliest(r, 1, (1, 0));
        }
        assert_eq!(credit.contributed("R", (5, 0)), vec![1]);
        credit.discard();
        assert_eq!(credit.contributed("R", (5, 0)), Vec::<u8>::new());
        credit.stage("R");
        if let Some(r) = credit.staged.get_mut("R") {
            keep_earliest(r, 1, (1, 0));
        }
        credit.commit();
        assert_eq!(credit.contributed("R", (5, 0)), vec![1]);
        credit.forget("R");
        assert_eq!(credit.contributed("R", (5, 0)), Vec::<u8>::new());
    }
}
