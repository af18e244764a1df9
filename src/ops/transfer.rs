//! Moving memories in and out: import and export, in the JSONL record shape `aletheia export`
//! writes and `aletheia import` reads.
//!
//! Both work in bounded pages (an import takes a batch of records, an export returns a page and
//! a cursor to the next), so a store of a million memories moves through any front end in
//! memory bounded by one page, and each import batch is one transaction.

use super::policy::{self, EXPORT_PAGE, IMPORT_BATCH, IMPORT_TEXT_MAX};
use super::recall::When;
use super::{Access, Context, OpError, Operation};
use crate::model::{Kind, Memory, MemoryType, NewMemory};
use crate::redact::Redacted;
use crate::time::Bound;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One line of an export or import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Record {
    #[serde(default)]
    pub uid: Option<String>,
    pub project: String,
    pub kind: Kind,
    #[serde(rename = "type", default = "default_type")]
    pub mtype: MemoryType,
    #[serde(default)]
    pub title: Option<String>,
    pub text: String,
    /// The coding tool it came from.
    #[serde(rename = "tool", default = "default_host")]
    pub host: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default)]
    pub pinned: bool,
    #[serde(default)]
    pub dismissed: bool,
    /// When it was said or done: epoch milliseconds (as an export writes it); an import also
    /// takes an ISO 8601 date or date-time, read in the caller's time zone unless it carries an
    /// offset. `occurred_at` is taken for it too.
    #[serde(alias = "occurred_at")]
    pub created_at: When,
}

fn default_type() -> MemoryType {
    MemoryType::Note
}

fn default_host() -> String {
    "import".into()
}

impl Record {
    /// When the memory was made, read with `clock`.
    pub fn created_at(&self, clock: &crate::time::Clock) -> Result<i64, OpError> {
        When::resolve(Some(&self.created_at), "created_at", clock, Bound::Start)
            .map(|at| at.expect("a time was given"))
    }
}

impl From<Memory> for Record {
    fn from(m: Memory) -> Record {
        Record {
            uid: Some(m.uid),
            project: m.project,
            kind: m.kind,
            mtype: m.mtype,
            title: Some(m.title),
            text: m.text,
            host: m.host,
            session_id: m.session_id,
            files: m.files,
            pinned: m.pinned,
            dismissed: m.dismissed,
            created_at: When::Millis(m.created_at),
        }
    }
}

/// `import`: a batch of records, through redaction and dedupe, in one transaction.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Import {
    /// At most 5000 records, each like a line of `aletheia export`.
    pub records: Vec<Record>,
}

/// How many records were new and how many were already stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Imported {
    pub new: usize,
    pub duplicates: usize,
}

impl Operation for Import {
    const NAME: &'static str = "import";
    const DESCRIPTION: &'static str = "Store memories from export records; identical memories are stored once and secrets are redacted.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Imported;

    fn run(self, ctx: &mut Context<'_>) -> Result<Imported, OpError> {
        if self.records.len() > IMPORT_BATCH {
            return Err(OpError::InvalidArgument(format!(
                "records takes at most {IMPORT_BATCH} records per call."
            )));
        }
        let mut batch = Vec::with_capacity(self.records.len());
        for (i, r) in self.records.into_iter().enumerate() {
            let project = super::named_project(&r.project, ctx.redactor)
                .map_err(|e| OpError::InvalidArgument(format!("records[{i}].project: {e}")))?;
            ctx.caller.check_project(&project)?;
            let created_at = r
                .created_at(&ctx.clock)
                .map_err(|e| OpError::InvalidArgument(format!("records[{i}].{e}")))?;
            let text = crate::capture::template::cut(&r.text.replace('\0', ""), IMPORT_TEXT_MAX);
            let (title, cut) = policy::title(r.title.as_deref(), &text);
            let m = NewMemory {
                project,
                kind: r.kind,
                mtype: r.mtype,
                title,
                text,
                host: r.host,
                session_id: r.session_id,
                files: r.files,
                pinned: r.pinned,
                created_at,
            };
            // A uid is kept only as given: one that redaction would change is not an id but
            // a secret's shape, and two of those would collide, so the memory gets a new one.
            let uid = r.uid.filter(|u| ctx.redactor.redact(u) == *u);
            let m = Redacted::new(m, ctx.redactor).with_title_cut(cut);
            batch.push((m, uid, r.dismissed));
        }
        let (new, duplicates) = ctx.store.import(&batch)?;
        Ok(Imported { new, duplicates })
    }
}

/// Where an export page ends: the next page starts after this memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Cursor {
    pub created_at: i64,
    pub id: i64,
}

/// `export`: one page of memories in time order, as records.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Export {
    /// Only this project. Omitted: every project.
    pub project: Option<String>,
    /// Continue after this cursor (the `next` of the previous page).
    pub after: Option<Cursor>,
}

/// A page of records and the cursor to the next page, if there is one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportPage {
    pub records: Vec<Record>,
    pub next: Option<Cursor>,
}

impl Operation for Export {
    const NAME: &'static str = "export";
    const DESCRIPTION: &'static str =
        "Every memory (of one project, or all) in time order, as records, a page at a time.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = ExportPage;

    fn run(self, ctx: &mut Context<'_>) -> Result<ExportPage, OpError> {
        let project = ctx
            .caller
            .project_filter(self.project.as_deref(), ctx.redactor)?;
        let after = self.after.map(|c| (c.created_at, c.id));
        let rows = ctx
            .store
            .memories_page(project.as_deref(), after, EXPORT_PAGE)?;
        let next = (rows.len() == EXPORT_PAGE)
            .then(|| rows.last())
            .flatten()
            .map(|m| Cursor {
                created_at: m.created_at,
                id: m.id,
            });
        Ok(ExportPage {
            records: rows.into_iter().map(Record::from).collect(),
            next,
        })
    }
}
