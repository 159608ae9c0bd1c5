//! Window function calls and the WINDOW clause: sqlparser's `Function { over, .. }` and
//! `Select::named_window` to [`Expr::Window`], with named windows resolved here (mysqld's
//! `Window::resolve_reference` and `Window::check_window_definitions`, sql/window.cc): a
//! window naming another takes its PARTITION BY and ORDER BY, may add an ORDER BY only when
//! the named one has none, and may not name a window that has a frame.
//!
//! Invariant: the resolution follows at most as many references as the block has named
//! windows (a cycle is 3580, as mysqld's `check_window_definitions`).

use sqlparser::ast as sp;

use super::{unsupported, Front};
use crate::ast::{AggKind, Expr, Func, WinBound, WinFrame, WinFunc, WindowCall};
use crate::error::{Result, SqlError};
use crate::timefn::TimeFn;

fn window_error(code: u16, message: String) -> SqlError {
    SqlError::Other { code, sqlstate: "HY000", message }
}

/// The named windows of one query block (WINDOW w AS (...), ...).
pub(super) type NamedWindows = Vec<(String, sp::WindowSpec)>;

impl Front<'_> {
    /// The WINDOW clause of a block, checked for duplicate names (3591).
    pub(super) fn named_windows(
        &mut self,
        defs: &[sp::NamedWindowDefinition],
    ) -> Result<NamedWindows> {
        let mut out: NamedWindows = Vec::with_capacity(defs.len());
        for sp::NamedWindowDefinition(name, expr) in defs {
            if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name.value)) {
                return Err(window_error(
                    3591,
                    format!("Window '{}' is defined twice.", name.value),
                ));
            }
            let spec = match expr {
                sp::NamedWindowExpr::WindowSpec(s) => s.clone(),
                sp::NamedWindowExpr::NamedWindow(other) => sp::WindowSpec {
                    window_name: Some(other.clone()),
                    partition_by: Vec::new(),
                    order_by: Vec::new(),
                    window_frame: None,
                },
            };
            out.push((name.value.clone(), spec));
        }
        // Every definition must resolve (unknown names and cycles are errors even when no
        // function uses the window, as in mysqld).
        let saved = std::mem::replace(&mut self.windows, out);
        let checked = self
            .windows
            .iter()
            .try_for_each(|(name, spec)| self.resolve_spec(spec, Some(name)).map(|_| ()));
        let out = std::mem::replace(&mut self.windows, saved);
        checked.map(|()| out)
    }

    /// A window specification with its references to named windows folded in.
    fn resolve_spec(&self, spec: &sp::WindowSpec, own: Option<&str>) -> Result<sp::WindowSpec> {
        let mut spec = spec.clone();
        let mut hops = 0usize;
        let mut own_name = own.map(str::to_string);
        while let Some(base_name) = spec.window_name.take() {
            let Some((bname, base)) =
                self.windows.iter().find(|(n, _)| n.eq_ignore_ascii_case(&base_name.value))
            else {
                return Err(window_error(
                    3579,
                    format!("Window name '{}' is not defined.", base_name.value),
                ));
            };
            hops += 1;
            if hops > self.windows.len() {
                return Err(window_error(
                    3580,
                    "There is a circularity in the window dependency graph.".into(),
                ));
            }
            if !spec.partition_by.is_empty() {
                return Err(window_error(
                    3581,
                    "A window which depends on another cannot define partitioning.".into(),
                ));
            }
            if base.window_frame.is_some() {
                return Err(window_error(
                    3582,
                    format!(
                        "Window '{bname}' has a frame definition, so cannot be referenced by \
                         another window."
                    ),
                ));
            }
            if !spec.order_by.is_empty() && !base.order_by.is_empty() {
                let child = own_name.clone().unwrap_or_else(|| "<unnamed window>".into());
                return Err(window_error(
                    3583,
                    format!("Window '{child}' cannot inherit '{bname}' since both contain an ORDER BY clause."),
                ));
            }
            spec.partition_by = base.partition_by.clone();
            if spec.order_by.is_empty() {
                spec.order_by = base.order_by.clone();
            }
            spec.window_name = base.window_name.clone();
            own_name = Some(bname.clone());
        }
        Ok(spec)
    }

    /// `name(args) OVER (...)` or `OVER w`.
    pub(super) fn window_call(
        &mut self,
        name: &str,
        f: &sp::Function,
        args: &[&sp::FunctionArg],
        distinct: bool,
    ) -> Result<Expr> {
        let func = match name {
            "row_number" => WinFunc::RowNumber,
            "rank" => WinFunc::Rank,
            "dense_rank" => WinFunc::DenseRank,
            "percent_rank" => WinFunc::PercentRank,
            "cume_dist" => WinFunc::CumeDist,
            "ntile" => WinFunc::Ntile,
            "lag" => WinFunc::Lag,
            "lead" => WinFunc::Lead,
            "first_value" => WinFunc::FirstValue,
            "last_value" => WinFunc::LastValue,
            "nth_value" => WinFunc::NthValue,
            "count" => WinFunc::Agg(AggKind::Count),
            "sum" => WinFunc::Agg(AggKind::Sum),
            "avg" => WinFunc::Agg(AggKind::Avg),
            "min" => WinFunc::Agg(AggKind::Min),
            "max" => WinFunc::Agg(AggKind::Max),
            // mysqld's grammar has OVER only after these (and the JSON/bit aggregates).
            _ => {
                return Err(SqlError::near(&format!(
                    "OVER {}",
                    f.over.as_ref().map(|o| o.to_string()).unwrap_or_default()
                )))
            }
        };
        if distinct {
            return Err(unsupported("<window function>(DISTINCT ..)"));
        }
        if f.null_treatment == Some(sp::NullTreatment::IgnoreNulls) {
            return Err(unsupported("IGNORE NULLS"));
        }
        let (min, max) = match func {
            WinFunc::Ntile | WinFunc::FirstValue | WinFunc::LastValue => (1, 1),
            WinFunc::Lag | WinFunc::Lead => (1, 3),
            WinFunc::NthValue => (2, 2),
            WinFunc::Agg(_) => (1, 1),
            _ => (0, 0),
        };
        let mut xs = Vec::with_capacity(args.len());
        for a in args {
            match a {
                sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Wildcard)
                    if func == WinFunc::Agg(AggKind::Count) && args.len() == 1 => {}
                sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e)) => xs.push(self.expr(e)?),
                _ => return Err(SqlError::FunctionArgs(name.to_string())),
            }
        }
        let count_star = func == WinFunc::Agg(AggKind::Count) && xs.is_empty() && args.len() == 1;
        if !count_star && (xs.len() < min || xs.len() > max) {
            return Err(SqlError::FunctionArgs(name.to_string()));
        }
        let spec = match f.over.as_ref() {
            Some(sp::WindowType::WindowSpec(s)) => self.resolve_spec(s, None)?,
            Some(sp::WindowType::NamedWindow(n)) => {
                let s = sp::WindowSpec {
                    window_name: Some(n.clone()),
                    partition_by: Vec::new(),
                    order_by: Vec::new(),
                    window_frame: None,
                };
                // `OVER w` is the named window itself, frame included.
                match self.windows.iter().find(|(name, _)| name.eq_ignore_ascii_case(&n.value)) {
                    Some((_, base)) if base.window_frame.is_some() => {
                        let mut b = base.clone();
                        let frame = b.window_frame.take();
                        let mut r = self.resolve_spec(&b, Some(&n.value))?;
                        r.window_frame = frame;
                        r
                    }
                    _ => self.resolve_spec(&s, None)?,
                }
            }
            None => return Err(SqlError::near(name)),
        };
        let partition = spec.partition_by.iter().map(|e| self.expr(e)).collect::<Result<_>>()?;
        let order = self.order_items(&spec.order_by)?;
        let frame = match &spec.window_frame {
            None => None,
            Some(fr) => Some(self.frame(fr, &spec)?),
        };
        Ok(Expr::Window(Box::new(WindowCall { func, args: xs, partition, order, frame })))
    }

    fn frame(&mut self, fr: &sp::WindowFrame, spec: &sp::WindowSpec) -> Result<WinFrame> {
        let rows = match fr.units {
            sp::WindowFrameUnits::Rows => true,
            sp::WindowFrameUnits::Range => false,
            sp::WindowFrameUnits::Groups => return Err(SqlError::near("GROUPS")),
        };
        let wname = spec
            .window_name
            .as_ref()
            .map_or_else(|| "<unnamed window>".to_string(), |n| n.value.clone());
        let start = self.bound(&fr.start_bound, rows)?;
        let end = match &fr.end_bound {
            None => WinBound::CurrentRow,
            Some(b) => self.bound(b, rows)?,
        };
        if start == WinBound::UnboundedFollowing {
            return Err(window_error(
                3584,
                format!("Window '{wname}': frame start cannot be UNBOUNDED FOLLOWING."),
            ));
        }
        if end == WinBound::UnboundedPreceding {
            return Err(window_error(
                3585,
                format!("Window '{wname}': frame end cannot be UNBOUNDED PRECEDING."),
            ));
        }
        Ok(WinFrame { rows, start, end })
    }

    fn bound(&mut self, b: &sp::WindowFrameBound, rows: bool) -> Result<WinBound> {
        let offset = |this: &mut Self, e: &sp::Expr| -> Result<Box<Expr>> {
            if let sp::Expr::Interval(_) = e {
                if rows {
                    return Err(window_error(
                        3596,
                        "Window '<unnamed window>': INTERVAL can only be used with RANGE frames."
                            .into(),
                    ));
                }
                // `INTERVAL n unit`: kept as a one-argument AddInterval, the current row's
                // ORDER BY value added at run time (`exec/window.rs`).
                let sp::Expr::Interval(iv) = e else { unreachable!("matched above") };
                let unit = super::interval_unit(iv)?;
                let amount = this.expr(&iv.value)?;
                return Ok(Box::new(Expr::Func(
                    Func::Time(TimeFn::AddInterval { unit, sub: false }),
                    vec![amount],
                )));
            }
            // mysqld's `window_frame_bound`: an unsigned number or `?` (else 1064).
            match e {
                sp::Expr::Value(v)
                    if matches!(v.value, sp::Value::Number(..) | sp::Value::Placeholder(_)) =>
                {
                    Ok(Box::new(this.expr(e)?))
                }
                other => Err(SqlError::near(&other.to_string())),
            }
        };
        Ok(match b {
            sp::WindowFrameBound::CurrentRow => WinBound::CurrentRow,
            sp::WindowFrameBound::Preceding(None) => WinBound::UnboundedPreceding,
            sp::WindowFrameBound::Following(None) => WinBound::UnboundedFollowing,
            sp::WindowFrameBound::Preceding(Some(e)) => WinBound::Preceding(offset(self, e)?),
            sp::WindowFrameBound::Following(Some(e)) => WinBound::Following(offset(self, e)?),
        })
    }
}
