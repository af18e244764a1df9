//! What a hub decides about a push and a pull, apart from any engine. The SQLite hub
//! ([`super::hub_side`]) and the PostgreSQL one (`store::postgres::sync`) each read what they
//! hold and write what was decided in their own way, but decide here, so that a push comes to
//! the same on either: the same refusals, the same limits, and the same settling of versions
//! that did not see each other.

use super::Received;
use crate::sync::hlc;
use crate::sync::item::{Batch, Change, Item};

/// The most item text one pull answers with (the client reads up to 64 MiB).
pub(in crate::store) const MAX_PULL_BYTES: usize = 8 * 1024 * 1024;

/// The most an item may weigh on the wire: a memory's text is capped far below this where it
/// is written, so only a hand-made push comes near it.
const MAX_ITEM_BYTES: usize = 1024 * 1024;

/// The losing versions kept per item; older ones go.
pub(in crate::store) const CONFLICTS_KEPT: i64 = 10;

/// Why a whole push is refused, before anything in it is written. `other_token` is asked,
/// once the machine id is well formed, whether that machine is tied to another token than the
/// pusher's (and ties it to the pusher's when it is tied to none).
pub(in crate::store) fn refuse_push<E>(
    batch: &Batch,
    now: i64,
    other_token: impl FnOnce(&str) -> Result<bool, E>,
) -> Result<Option<String>, E> {
    let machine = batch.machine.as_str();
    if !hlc::is_machine_id(machine) {
        return Ok(Some(
            "a push must name its machine (1 to 64 lowercase letters and digits)".to_owned(),
        ));
    }
    if other_token(machine)? {
        return Ok(Some(format!(
            "machine {machine} syncs with another token: use that one, or give this store a new machine id"
        )));
    }
    for change in &batch.changes {
        if change.origin != machine {
            return Ok(Some(
                "every change in a push must be the pushing machine's own".to_owned(),
            ));
        }
        if let Err(why) = hlc::check(&change.rev, machine, now) {
            return Ok(Some(why));
        }
        if change.base.as_deref().is_some_and(|b| !hlc::well_formed(b)) {
            return Ok(Some("a change's base is not a revision".to_owned()));
        }
    }
    Ok(None)
}

/// Whether an item weighs more on the wire than [`MAX_ITEM_BYTES`].
pub(in crate::store) fn too_big(item: &Item) -> bool {
    serde_json::to_string(item).map_or(usize::MAX, |s| s.len()) > MAX_ITEM_BYTES
}

/// Whether every project `item` names (for an episode, its memory's `memory_project`) passes
/// `allowed`.
pub(in crate::store) fn allowed_item(
    item: &Item,
    memory_project: Option<&str>,
    allowed: &dyn Fn(&str) -> bool,
) -> bool {
    match item {
        Item::Episode(_) => memory_project.is_some_and(allowed),
        // A rule for everywhere reaches every project.
        Item::Rule(r) if r.scope_tier != "project" => allowed("\u{0}every project"),
        _ => item.projects().iter().all(|p| allowed(p)),
    }
}

/// Whether `held` (what the hub has under an item's key) is the same item as `incoming` in
/// the same place: a key reused from another project, or a rule id that two rules' contents
/// share, must not reach the item already there.
pub(in crate::store) fn same_place(held: &Item, incoming: &Item) -> bool {
    match (held, incoming) {
        (Item::Memory(a), Item::Memory(b)) => a.project == b.project,
        (Item::Fact(a), Item::Fact(b)) => a.project == b.project,
        (Item::Rule(a), Item::Rule(b)) => {
            (&a.when, &a.then, &a.scope_tier, &a.scope_name)
                == (&b.when, &b.then, &b.scope_tier, &b.scope_name)
        }
        (Item::List(_), Item::List(_)) | (Item::Episode(_), Item::Episode(_)) => true,
        _ => false,
    }
}

/// What the hub does with a pushed change, against what it holds under the change's key.
#[derive(Debug, PartialEq)]
pub(in crate::store) enum Settle {
    /// Write the change as sent: nothing is held, or the change follows what is.
    Take(Box<Change>),
    /// The hub holds this revision already, or a later one from the same machine.
    Unchanged,
    /// Versions that did not see each other: the later revision wins, and the loser is kept.
    Conflict(Box<Conflict>),
}

/// Two versions of an item that did not see each other, settled.
#[derive(Debug, PartialEq)]
pub(in crate::store) struct Conflict {
    winner: Change,
    loser: Change,
    /// The winner's item with the loser's tombstones (a dismissal, a disabled rule).
    merged: Item,
    /// Whether the winner is the version the hub holds.
    held_won: bool,
}

/// Settle `incoming` (its item already the hub's, in the same place and allowed) against the
/// revision the hub holds under its key, `held` (rev, origin), and the item held there.
///
/// A change whose base is what the hub holds (or that follows the hub's copy from the same
/// machine) replaces it. Any other is concurrent: the later revision wins.
pub(in crate::store) fn settle(
    incoming: Change,
    held: Option<(String, String)>,
    held_item: Option<Item>,
) -> Settle {
    match held.zip(held_item) {
        None => Settle::Take(Box::new(incoming)),
        Some(((rev, _), _)) if rev == incoming.rev => Settle::Unchanged,
        Some(((rev, origin), _))
            if incoming.base.as_deref() == Some(rev.as_str())
                || (origin == incoming.origin && rev < incoming.rev) =>
        {
            Settle::Take(Box::new(incoming))
        }
        // An older revision of the hub's copy from the same machine: a resent batch that a
        // later push has already passed.
        Some(((_, origin), _)) if origin == incoming.origin => Settle::Unchanged,
        Some(((rev, origin), item)) => {
            let mine = Change {
                rev,
                base: None,
                origin,
                item,
            };
            let held_won = incoming.rev <= mine.rev;
            let (winner, loser) = if held_won {
                (mine, incoming)
            } else {
                (incoming, mine)
            };
            let merged = winner.item.clone().with_tombstones_of(&loser.item);
            Settle::Conflict(Box::new(Conflict {
                winner,
                loser,
                merged,
                held_won,
            }))
        }
    }
}

impl Settle {
    /// What the hub writes, counted in `out`. A conflict's loser is kept by `keep` (true when
    /// it was not kept already); the hub writes the merged item at a new revision of its own
    /// (`me`, `tick`) when the loser's tombstones changed the winner, else the winner unless
    /// it is what the hub holds already.
    pub(in crate::store) fn apply<E>(
        self,
        out: &mut Received,
        me: &str,
        keep: impl FnOnce(&Change, &Change) -> Result<bool, E>,
        tick: impl FnOnce() -> String,
    ) -> Result<Option<Change>, E> {
        Ok(match self {
            Settle::Take(change) => Some(*change),
            Settle::Unchanged => {
                out.unchanged += 1;
                None
            }
            Settle::Conflict(conflict) => {
                let Conflict {
                    winner,
                    loser,
                    merged,
                    held_won,
                } = *conflict;
                if keep(&winner, &loser)? {
                    out.conflicts += 1;
                }
                if merged != winner.item {
                    Some(Change {
                        rev: tick(),
                        base: None,
                        origin: me.to_owned(),
                        item: merged,
                    })
                } else if held_won {
                    None
                } else {
                    Some(winner)
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::hlc::rev;
    use crate::sync::item::EpisodeItem;

    fn episode(text: &str, dismissed: bool) -> Item {
        Item::Episode(EpisodeItem {
            memory_uid: "u1".into(),
            title: "ran tests".into(),
            text: text.into(),
            replaced_at: 1,
            dismissed,
        })
    }

    /// `machine`'s change at `ms` on `base` (a time of m1's).
    fn at(ms: i64, machine: &str, base: Option<i64>, item: Item) -> Change {
        Change {
            rev: rev(ms, 0, machine),
            base: base.map(|b| rev(b, 0, "m1")),
            origin: machine.into(),
            item,
        }
    }

    /// What `settle` then `apply` write for `incoming` against the item m1 gave the hub at
    /// `held`, with the counts they leave.
    fn settled(incoming: Change, held: Option<(i64, Item)>) -> (Option<Change>, Received) {
        let (held, item) = held.map_or((None, None), |(ms, item)| {
            (Some((rev(ms, 0, "m1"), "m1".to_owned())), Some(item))
        });
        let mut out = Received::default();
        let write = settle(incoming, held, item)
            .apply(
                &mut out,
                "hub",
                |_, _| Ok::<_, ()>(true),
                || rev(50, 0, "hub"),
            )
            .unwrap();
        (write, out)
    }

    #[test]
    fn a_change_that_follows_the_held_one_is_taken_and_a_resent_one_is_not() {
        let held = (10, episode("v1", false));
        let next = at(20, "m2", Some(10), episode("v2", false));
        assert_eq!(settled(next.clone(), Some(held.clone())).0, Some(next));
        for stale in [
            at(10, "m1", None, episode("v1", false)),
            at(5, "m1", None, episode("v0", false)),
        ] {
            let (write, out) = settled(stale, Some(held.clone()));
            assert_eq!((write, out.unchanged), (None, 1));
        }
        let new = at(1, "m2", None, episode("v1", false));
        assert_eq!(settled(new.clone(), None).0, Some(new));
    }

    #[test]
    fn of_two_concurrent_versions_the_later_wins_with_the_losers_tombstones() {
        let held = (10, episode("held", true));
        let (write, out) = settled(
            at(20, "m2", None, episode("later", false)),
            Some(held.clone()),
        );
        assert_eq!(out.conflicts, 1);
        assert_eq!(
            write,
            Some(at(50, "hub", None, episode("later", true))),
            "merged, at the hub's own revision"
        );
        let (write, out) = settled(at(5, "m2", None, episode("earlier", true)), Some(held));
        assert_eq!((write, out.conflicts), (None, 1), "the held version stands");
    }
}
