//! The hub's projects and the identities they travel under: an item from elsewhere names
//! projects by identity, and is made to name the hub's own (and back again as it is served).
//! The lookups are kept in the transaction, since a push names the same few projects again and
//! again.

use super::Tx;
use crate::store::sync::try_map_projects;
use crate::sync::item::Item;
use postgres::Error;
use std::collections::BTreeMap;

/// The identity a local project travels under (a hub ties none of its own).
fn identity_of(tx: &mut Tx<'_, '_>, project: &str) -> Result<String, Error> {
    if let Some(identity) = tx.identities.get(project) {
        return Ok(identity.clone());
    }
    let identity = tx
        .query_opt(
            "SELECT identity FROM sync_projects WHERE project = $1",
            &[&project],
        )?
        .map_or_else(|| project.to_owned(), |r| r.get(0));
    tx.identities.insert(project.to_owned(), identity.clone());
    Ok(identity)
}

/// The local project for an identity from elsewhere, named `name` there, tying them now if
/// the hub has not seen the identity and `tie` allows it (SQLite's `project_for`).
fn project_for(
    tx: &mut Tx<'_, '_>,
    identity: &str,
    name: &str,
    tie: bool,
) -> Result<String, Error> {
    let cache_key = (identity.to_owned(), name.to_owned());
    if let Some(p) = tx.projects.get(&cache_key) {
        return Ok(p.clone());
    }
    let found: Option<String> = tx
        .query_opt(
            "SELECT project FROM sync_projects WHERE identity = $1",
            &[&identity],
        )?
        .map(|r| r.get(0));
    let project = match found {
        Some(project) => project,
        None if !tie => if name.is_empty() { identity } else { name }.to_owned(),
        None => {
            let mut project = if name.is_empty() { identity } else { name }.to_owned();
            if taken(tx, &project, identity)? {
                project = identity.to_owned();
                let mut n = 1;
                while taken(tx, &project, identity)? {
                    n += 1;
                    project = format!("{identity}~{n}");
                }
            }
            // Neither the project nor the identity is tied (both were just looked up, under
            // the lock): a plain insert is SQLite's `INSERT OR REPLACE`.
            tx.execute(
                "INSERT INTO sync_projects (project, identity) VALUES ($1, $2)",
                &[&project, &identity],
            )?;
            tx.identities.insert(project.clone(), identity.to_owned());
            project
        }
    };
    tx.projects.insert(cache_key, project.clone());
    Ok(project)
}

/// Whether `project` is another identity's already, or holds memories of a project that is
/// not `identity`'s.
fn taken(tx: &mut Tx<'_, '_>, project: &str, identity: &str) -> Result<bool, Error> {
    Ok(tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM sync_projects WHERE project = $1)
                 OR ($1 <> $2::text AND EXISTS (SELECT 1 FROM memories WHERE project = $1))",
            &[&project, &identity],
        )?
        .get(0))
}

/// An item from elsewhere with its identities made the hub's projects.
pub(super) fn localise(
    tx: &mut Tx<'_, '_>,
    item: Item,
    names: &BTreeMap<String, String>,
    tie: bool,
) -> Result<Item, Error> {
    try_map_projects(item, |identity| {
        let name = names.get(identity).map_or(identity, String::as_str);
        project_for(tx, identity, name, tie)
    })
}

/// A local item as it travels: each project named by its identity, and `names` told the
/// hub's name for it.
pub(super) fn named(
    tx: &mut Tx<'_, '_>,
    item: Item,
    names: &mut BTreeMap<String, String>,
) -> Result<Item, Error> {
    try_map_projects(item, |project| {
        let identity = identity_of(tx, project)?;
        names.insert(identity.clone(), project.to_owned());
        Ok(identity)
    })
}
