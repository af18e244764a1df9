//! The read operations over memories and facts: search, timeline, get_observations,
//! session_start_context and fact_history, and the command line's list of fact subjects.

use super::policy::{self, LIMIT, MAX_IDS, MAX_OFFSET, TIMELINE_SIDE};
use super::{Access, Context, OpError, Operation};
use crate::model::{Kind, MemoryType};
use crate::recall::{context, facts, observations, search, timeline};
use crate::time::Bound;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A point in time as a caller writes it: an ISO 8601 date or date-time, a relative time
/// (`yesterday`, `3 days ago`, `2w`), or epoch milliseconds (as a number or a string).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum When {
    Millis(i64),
    Text(String),
}

impl JsonSchema for When {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "When".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["string", "integer"] })
    }
}

impl When {
    /// The instant, read in the caller's time zone; `bound` says which end of a bare day.
    pub fn resolve(
        w: Option<&When>,
        name: &str,
        clock: &crate::time::Clock,
        bound: Bound,
    ) -> Result<Option<i64>, OpError> {
        match w {
            None => Ok(None),
            Some(When::Millis(ms)) => Ok(Some(*ms)),
            Some(When::Text(s)) => clock
                .parse(s, bound)
                .map(Some)
                .map_err(|e| OpError::InvalidArgument(format!("{name}: {e}"))),
        }
    }
}

/// `search`: memories and facts matching words, or memories touching a file.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Search {
    /// Words to search for. Required unless file is set.
    pub query: Option<String>,
    /// Exact file path. Then only project, file_suffix and limit apply.
    pub file: Option<String>,
    /// With file, match paths that end with the text.
    #[serde(default)]
    pub file_suffix: bool,
    /// Project key. Omitted: every project.
    pub project: Option<String>,
    /// decision, gotcha, bugfix, feature, refactor, change, discovery or note.
    #[serde(rename = "type")]
    pub mtype: Option<MemoryType>,
    /// prompt, event, observation, summary or note.
    pub kind: Option<Kind>,
    /// 1 to 100.
    #[schemars(extend("default" = 20, "minimum" = 1, "maximum" = 100))]
    pub limit: Option<i64>,
    /// Rows to skip.
    #[schemars(extend("default" = 0, "minimum" = 0))]
    pub offset: Option<i64>,
    /// ISO 8601 date or date-time, relative time (yesterday, 3 days ago, 2w) or epoch ms. Applies
    /// to when a memory was said or done (created_at), not when it was stored.
    pub since: Option<When>,
    /// Like since. A bare date includes that day.
    pub until: Option<When>,
    /// Only results older than this. The earlier of this and until wins.
    pub older_than_days: Option<f64>,
    /// relevance, date_desc or date_asc.
    #[schemars(extend("default" = "relevance"))]
    pub order: Option<search::Order>,
    /// Answer as memory stood at this time (like since): memories said or done later, later
    /// edits and later replacements are left out. Matching is on today's words.
    pub as_of: Option<When>,
    /// Pass the query to FTS5 as written (command line only).
    #[serde(skip)]
    pub raw: bool,
}

impl Operation for Search {
    const NAME: &'static str = "search";
    const DESCRIPTION: &'static str = "Search memories and facts, or find memories by exact file path. Read-only. Returns an index, one line per hit (#ID DATE [type] title (project, tool)), with matching facts first. Use get_observations for full text.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = search::SearchResult;

    fn run(self, ctx: &mut Context<'_>) -> Result<Self::Output, OpError> {
        let query = policy::optional(self.query);
        let file = policy::optional(self.file);
        if query.is_none() && file.is_none() {
            return Err(OpError::InvalidArgument("query is required.".into()));
        }
        // A caller limited to several projects that names none searches all of them.
        let each = match &ctx.caller.projects {
            Some(list) if list.len() > 1 && policy::optional(self.project.clone()).is_none() => {
                Some(list.clone())
            }
            _ => None,
        };
        let offset = self.offset.unwrap_or(0);
        if offset < 0 {
            return Err(OpError::InvalidArgument("offset must be 0 or more.".into()));
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "0 to MAX_OFFSET: a negative offset is refused above"
        )]
        let offset = offset.min(MAX_OFFSET) as usize;
        let since = When::resolve(self.since.as_ref(), "since", &ctx.clock, Bound::Start)?;
        let mut until = When::resolve(self.until.as_ref(), "until", &ctx.clock, Bound::End)?;
        if let Some(days) = self.older_than_days {
            let cutoff = policy::days_before(ctx.clock.now(), days)?;
            until = Some(until.map_or(cutoff, |u| u.min(cutoff)));
        }
        let q = search::SearchQuery {
            query,
            file,
            file_suffix: self.file_suffix,
            project: ctx
                .caller
                .project_filter(self.project.as_deref(), ctx.redactor)?,
            mtype: self.mtype,
            kind: self.kind,
            since,
            until,
            limit: LIMIT.clamp(self.limit),
            offset,
            order: self.order.unwrap_or_default(),
            raw: self.raw,
            as_of: When::resolve(self.as_of.as_ref(), "as_of", &ctx.clock, Bound::Start)?,
        };
        let mut found = match each {
            Some(projects) => across(ctx, &q, &projects)?,
            None => one_search(ctx, &q)?,
        };
        mark_stale(ctx, &mut found, q.order == search::Order::Relevance);
        Ok(found)
    }
}

/// A stale hit's score is this much of what it was: a little lower, never hidden.
const STALE_WEIGHT: f64 = 0.8;

/// Mark the hits whose files changed or went away since they were written, in the project
/// folder this front end works in, and (in relevance order) move them a little lower on the
/// page. A hit of another project, or a front end without a folder, is left as it is.
fn mark_stale(ctx: &Context<'_>, found: &mut search::SearchResult, by_relevance: bool) {
    let mut by_project: Vec<&str> = found
        .hits
        .iter()
        .map(|h| h.memory.project.as_str())
        .collect();
    by_project.sort_unstable();
    by_project.dedup();
    let mut marks = std::collections::HashMap::new();
    for project in by_project {
        if let Some(root) = ctx.root_of(project) {
            let memories = found
                .hits
                .iter()
                .map(|h| &h.memory)
                .filter(|m| m.project == project);
            marks.extend(crate::drift::marks::stale_marks(root, memories));
        }
    }
    if marks.is_empty() {
        return;
    }
    for h in &mut found.hits {
        if let Some(mark) = marks.remove(&h.memory.id) {
            h.stale = Some(mark);
            h.score *= STALE_WEIGHT;
        }
    }
    if by_relevance {
        found.hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    }
}

fn one_search(ctx: &Context<'_>, q: &search::SearchQuery) -> Result<search::SearchResult, OpError> {
    Ok(search::ranked(ctx.store, q, ctx.semantic)?)
}

/// The facts a search lists before its hits, at most.
const SEARCH_FACTS: usize = 5;

/// One search over each of `projects`, merged: by score for relevance, by date otherwise, then
/// by id. Each search is asked for everything up to the page's end, so the page holds the best
/// of every project. (The store's filter takes one project; a caller limited to several is
/// the hub's, and a handful of searches costs it less than a second filter in every engine.)
fn across(
    ctx: &Context<'_>,
    q: &search::SearchQuery,
    projects: &[String],
) -> Result<search::SearchResult, OpError> {
    let mut facts: Vec<crate::model::Fact> = Vec::new();
    let mut hits = Vec::new();
    for p in projects {
        let each = search::SearchQuery {
            project: Some(p.clone()),
            offset: 0,
            limit: q.offset + q.limit,
            ..q.clone()
        };
        let found = one_search(ctx, &each)?;
        for f in found.facts {
            if !facts.iter().any(|g| g.id == f.id) {
                facts.push(f);
            }
        }
        hits.extend(found.hits);
    }
    match q.order {
        search::Order::Relevance => hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.memory.id.cmp(&b.memory.id))
        }),
        search::Order::DateDesc => hits.sort_by(|a, b| {
            (b.memory.created_at, b.memory.id).cmp(&(a.memory.created_at, a.memory.id))
        }),
        search::Order::DateAsc => hits.sort_by_key(|h| (h.memory.created_at, h.memory.id)),
    }
    let hits: Vec<_> = hits.into_iter().skip(q.offset).take(q.limit).collect();
    if q.offset > 0 {
        facts.clear();
    }
    facts.truncate(SEARCH_FACTS);
    let reason = (hits.is_empty() && facts.is_empty()).then(|| {
        format!(
            "No matches in this token's projects ({}).",
            projects.join(", ")
        )
    });
    Ok(search::SearchResult {
        facts,
        hits,
        reason,
    })
}

/// `timeline`: the memories before and after one memory.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Timeline {
    /// Memory id from search. Takes priority over query.
    pub anchor: Option<i64>,
    /// Finds the anchor when anchor is not given.
    pub query: Option<String>,
    /// Limits the lookup and the neighbours.
    pub project: Option<String>,
    /// Rows before the anchor, 0 to 50.
    #[schemars(extend("default" = 5, "minimum" = 0, "maximum" = 50))]
    pub before: Option<i64>,
    /// Rows after the anchor, 0 to 50.
    #[schemars(extend("default" = 5, "minimum" = 0, "maximum" = 50))]
    pub after: Option<i64>,
}

impl Operation for Timeline {
    const NAME: &'static str = "timeline";
    const DESCRIPTION: &'static str = "Show the memories before and after one memory, in time order, with an arrow on the anchor. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Option<timeline::Timeline>;

    fn run(self, ctx: &mut Context<'_>) -> Result<Self::Output, OpError> {
        let query = policy::optional(self.query);
        if self.anchor.is_none() && query.is_none() {
            return Err(OpError::InvalidArgument(
                "anchor or query is required.".into(),
            ));
        }
        let q = timeline::TimelineQuery {
            anchor: self.anchor,
            query,
            project: ctx
                .caller
                .project_filter(self.project.as_deref(), ctx.redactor)?,
            before: TIMELINE_SIDE.clamp(self.before),
            after: TIMELINE_SIDE.clamp(self.after),
        };
        Ok(timeline::timeline(ctx.store, &q, ctx.semantic)?)
    }
}

/// `get_observations`: memories in full by id.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GetObservations {
    /// Memory ids from search or timeline. Unknown ids are skipped.
    pub ids: Vec<i64>,
}

impl Operation for GetObservations {
    const NAME: &'static str = "get_observations";
    const DESCRIPTION: &'static str = "Fetch full text by id: title, project, time, source, narrative, facts and files. Read-only. Pass every id in one call.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Vec<observations::Observation>;

    fn run(self, ctx: &mut Context<'_>) -> Result<Self::Output, OpError> {
        if self.ids.is_empty() {
            return Err(OpError::InvalidArgument(
                "ids is required: give at least one memory id.".into(),
            ));
        }
        if self.ids.len() > MAX_IDS {
            return Err(OpError::InvalidArgument(format!(
                "ids takes at most {MAX_IDS} ids per call."
            )));
        }
        let mut found = observations::fetch(ctx.store, &self.ids)?;
        // Another project's memory is as unknown to this caller as a missing one.
        found.retain(|o| ctx.caller.may_see(&o.memory.project));
        Ok(found)
    }
}

/// `session_start_context`: the block a new session starts with.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SessionStartContext {
    /// Default: the project of the server's working directory.
    pub project: Option<String>,
    /// Recent unpinned memories, 1 to 100.
    #[schemars(extend("default" = 20, "minimum" = 1, "maximum" = 100))]
    pub limit: Option<i64>,
}

/// A session-start block and the project it is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextBlock {
    pub project: String,
    pub block: String,
}

impl Operation for SessionStartContext {
    const NAME: &'static str = "session_start_context";
    const DESCRIPTION: &'static str = "Load the session-start block for a project: pinned memories, the last session's requests, up to 10 active facts, the enabled rules and recent memories by day, cut to about 6000 characters. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = ContextBlock;

    fn run(self, ctx: &mut Context<'_>) -> Result<Self::Output, OpError> {
        let project = ctx
            .caller
            .project_or_default(self.project.as_deref(), ctx.redactor)?;
        let mut opts = context::ContextOptions::for_project(&project);
        opts.limit = LIMIT.clamp(self.limit);
        opts.root = ctx.root_of(&project).map(std::path::Path::to_path_buf);
        let block = context::build(ctx.store, &opts, &ctx.clock)?;
        Ok(ContextBlock { project, block })
    }
}

/// `fact_history`: how the facts about one subject changed.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FactHistory {
    /// For example a service or library name.
    pub subject: String,
    /// Project key. Omitted: every project.
    pub project: Option<String>,
    /// Only facts with this predicate.
    pub predicate: Option<String>,
    /// Facts valid at this time (ISO 8601, relative or epoch ms); wins over include_superseded.
    pub as_of: Option<When>,
    /// Also list replaced facts.
    #[serde(default)]
    pub include_superseded: bool,
    /// Match every subject holding each word of `subject` ("postgres" finds "the postgres"),
    /// not the one subject it names (command line only: the MCP tool is documented to match
    /// the subject whole).
    #[serde(skip)]
    pub by_words: bool,
}

/// The facts found about a subject, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FactHistoryOutput {
    pub subject: String,
    pub facts: Vec<facts::Fact>,
}

impl Operation for FactHistory {
    const NAME: &'static str = "fact_history";
    const DESCRIPTION: &'static str =
        "Show how the facts about one subject changed. Read-only. Default: current facts only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = FactHistoryOutput;

    fn run(self, ctx: &mut Context<'_>) -> Result<Self::Output, OpError> {
        let subject = policy::required("subject", Some(&self.subject))?;
        let q = facts::HistoryQuery {
            subject: subject.trim().to_owned(),
            project: ctx
                .caller
                .project_filter(self.project.as_deref(), ctx.redactor)?,
            predicate: policy::optional(self.predicate),
            as_of: When::resolve(self.as_of.as_ref(), "as_of", &ctx.clock, Bound::Start)?,
            include_superseded: self.include_superseded,
        };
        let facts = if self.by_words {
            ctx.store.fact_history_by_words(&q)?
        } else {
            ctx.store.fact_history(&q)?
        };
        Ok(FactHistoryOutput {
            subject: q.subject,
            facts,
        })
    }
}

/// `fact_subjects`: the subjects facts are about, with how many each has. The command line's
/// `aletheia facts` with no subject, for finding the subject to ask about; not an MCP tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FactSubjects {
    /// Project key. Omitted: every project.
    pub project: Option<String>,
    /// Also count replaced facts.
    #[serde(default)]
    pub include_superseded: bool,
    /// 1 to 100.
    #[schemars(extend("default" = 20, "minimum" = 1, "maximum" = 100))]
    pub limit: Option<i64>,
}

/// The subjects listed, most facts first, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactSubjectsOutput {
    /// The project listed; `None` for every project.
    pub project: Option<String>,
    #[serde(flatten)]
    pub subjects: crate::store::fact_queries::Subjects,
}

impl Operation for FactSubjects {
    const NAME: &'static str = "fact_subjects";
    const DESCRIPTION: &'static str = "List the subjects of the current facts (with include_superseded, of every version), each with how many facts it has, most first. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = FactSubjectsOutput;

    fn run(self, ctx: &mut Context<'_>) -> Result<Self::Output, OpError> {
        let project = ctx
            .caller
            .project_filter(self.project.as_deref(), ctx.redactor)?;
        let subjects = ctx.store.fact_subjects(
            project.as_deref(),
            self.include_superseded,
            LIMIT.clamp(self.limit),
        )?;
        Ok(FactSubjectsOutput { project, subjects })
    }
}
