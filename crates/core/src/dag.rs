//! The plan's dependency graph: validation before anything runs (duplicates,
//! unknown dependencies, cycles via Kahn's algorithm) and a ready queue that
//! hands out runnable tools critical-path first.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::plan::ToolInvocation;

/// Why a plan's graph is unusable. Nothing runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DagError {
    #[error("duplicate toolId {0:?}")]
    DuplicateToolId(String),
    #[error("tool {tool:?} depends on unknown toolId {dependency:?}")]
    UnknownDependency { tool: String, dependency: String },
    #[error("circular dependency: {}", describe_cycles(.0))]
    Cycle(Vec<Vec<String>>),
}

fn describe_cycles(cycles: &[Vec<String>]) -> String {
    cycles
        .iter()
        .map(|c| {
            let mut names = c.clone();
            names.push(c[0].clone());
            names.join(" → ")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl DagError {
    /// Every toolId taking part in a cycle (empty for other errors).
    pub fn cycle_members(&self) -> Vec<String> {
        match self {
            DagError::Cycle(cycles) => cycles.iter().flatten().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

/// A validated DAG over the plan's tools, indexed by position in the plan.
#[derive(Debug, Clone)]
pub struct Dag {
    deps: Vec<Vec<usize>>,
    dependents: Vec<Vec<usize>>,
    /// Length of the longest chain from the tool to a sink, the tool included.
    depth: Vec<usize>,
    order: Vec<usize>,
}

impl Dag {
    /// Validates the tools' graph: unique ids, known dependencies, no cycles.
    pub fn new(tools: &[ToolInvocation]) -> Result<Dag, DagError> {
        let mut index = HashMap::with_capacity(tools.len());
        for (i, t) in tools.iter().enumerate() {
            if index.insert(t.tool_id.as_str(), i).is_some() {
                return Err(DagError::DuplicateToolId(t.tool_id.clone()));
            }
        }
        let n = tools.len();
        let mut deps = vec![Vec::new(); n];
        let mut dependents = vec![Vec::new(); n];
        for (i, t) in tools.iter().enumerate() {
            for d in &t.dependencies {
                let Some(&j) = index.get(d.as_str()) else {
                    return Err(DagError::UnknownDependency {
                        tool: t.tool_id.clone(),
                        dependency: d.clone(),
                    });
                };
                if !deps[i].contains(&j) {
                    deps[i].push(j);
                    dependents[j].push(i);
                }
            }
        }

        // Kahn's algorithm, in plan order among equals.
        let mut in_degree: Vec<usize> = deps.iter().map(Vec::len).collect();
        let mut queue: std::collections::VecDeque<usize> =
            (0..n).filter(|&i| in_degree[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = queue.pop_front() {
            order.push(i);
            for &k in &dependents[i] {
                in_degree[k] -= 1;
                if in_degree[k] == 0 {
                    queue.push_back(k);
                }
            }
        }
        if order.len() != n {
            let remaining: Vec<bool> = in_degree.iter().map(|&d| d > 0).collect();
            let cycles = find_cycles(&deps, &remaining)
                .into_iter()
                .map(|c| c.into_iter().map(|i| tools[i].tool_id.clone()).collect())
                .collect();
            return Err(DagError::Cycle(cycles));
        }

        let mut depth = vec![1usize; n];
        for &i in order.iter().rev() {
            depth[i] = 1 + dependents[i].iter().map(|&k| depth[k]).max().unwrap_or(0);
        }
        Ok(Dag {
            deps,
            dependents,
            depth,
            order,
        })
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.deps.len()
    }

    /// Whether the plan has no tools.
    pub fn is_empty(&self) -> bool {
        self.deps.is_empty()
    }

    /// A topological order (Kahn's, plan order among equals).
    pub fn topological_order(&self) -> &[usize] {
        &self.order
    }

    /// The tools `i` depends on directly.
    pub fn dependencies(&self, i: usize) -> &[usize] {
        &self.deps[i]
    }

    /// Every tool that depends on `i`, directly or not.
    pub fn transitive_dependents(&self, i: usize) -> Vec<usize> {
        let mut seen = vec![false; self.len()];
        let mut stack = self.dependents[i].clone();
        let mut out = Vec::new();
        while let Some(k) = stack.pop() {
            if !std::mem::replace(&mut seen[k], true) {
                out.push(k);
                stack.extend_from_slice(&self.dependents[k]);
            }
        }
        out.sort_unstable();
        out
    }

    /// A ready queue over this graph.
    pub fn queue(&self) -> ReadyQueue<'_> {
        let waiting: Vec<usize> = self.deps.iter().map(Vec::len).collect();
        let mut q = ReadyQueue {
            dag: self,
            waiting,
            ready: BinaryHeap::new(),
            open: self.len(),
        };
        for i in 0..self.len() {
            if q.waiting[i] == 0 {
                q.push(i);
            }
        }
        q
    }
}

/// Walks backwards along dependencies among the nodes Kahn's algorithm could
/// not order; every such walk ends in a cycle.
fn find_cycles(deps: &[Vec<usize>], remaining: &[bool]) -> Vec<Vec<usize>> {
    let n = deps.len();
    // 0 = unvisited, 1 = on the current walk, 2 = finished
    let mut mark = vec![0u8; n];
    let mut cycles = Vec::new();
    for start in (0..n).filter(|&i| remaining[i]) {
        if mark[start] != 0 {
            continue;
        }
        let mut walk = Vec::new();
        let mut cur = start;
        loop {
            if mark[cur] == 1 {
                let pos = walk.iter().position(|&x| x == cur).expect("on walk");
                let mut cycle: Vec<usize> = walk[pos..].to_vec();
                cycle.reverse(); // dependency order: each tool is needed by the next
                cycles.push(cycle);
                break;
            }
            if mark[cur] == 2 {
                break;
            }
            mark[cur] = 1;
            walk.push(cur);
            match deps[cur].iter().copied().find(|&d| remaining[d]) {
                Some(next) => cur = next,
                None => break,
            }
        }
        for w in walk {
            mark[w] = 2;
        }
    }
    cycles
}

/// Tools whose dependencies have all finished, handed out critical-path first
/// (longest chain of dependents), then in plan order.
#[derive(Debug)]
pub struct ReadyQueue<'a> {
    dag: &'a Dag,
    waiting: Vec<usize>,
    ready: BinaryHeap<(usize, Reverse<usize>)>,
    open: usize,
}

impl ReadyQueue<'_> {
    fn push(&mut self, i: usize) {
        self.ready.push((self.dag.depth[i], Reverse(i)));
    }

    /// The most urgent ready tool, without taking it.
    pub fn peek(&self) -> Option<usize> {
        self.ready.peek().map(|&(_, Reverse(i))| i)
    }

    /// Takes the most urgent ready tool.
    pub fn pop(&mut self) -> Option<usize> {
        self.ready.pop().map(|(_, Reverse(i))| i)
    }

    /// Marks `i` finished (whatever its outcome); returns the tools that became ready.
    pub fn finish(&mut self, i: usize) -> Vec<usize> {
        self.open = self.open.saturating_sub(1);
        let mut newly = Vec::new();
        for &k in &self.dag.dependents[i] {
            self.waiting[k] -= 1;
            if self.waiting[k] == 0 {
                self.push(k);
                newly.push(k);
            }
        }
        newly
    }

    /// Whether every tool has finished.
    pub fn is_done(&self) -> bool {
        self.open == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(spec: &[(&str, &[&str])]) -> Vec<ToolInvocation> {
        spec.iter()
            .map(|(id, deps)| {
                let mut t = ToolInvocation::new(*id, "s/t");
                t.dependencies = deps.iter().map(|d| d.to_string()).collect();
                t
            })
            .collect()
    }

    #[test]
    fn diamond_orders_dependencies_first() {
        let dag = Dag::new(&tools(&[
            ("D", &["B", "C"]),
            ("B", &["A"]),
            ("C", &["A"]),
            ("A", &[]),
        ]))
        .unwrap();
        let order = dag.topological_order();
        let pos = |i| order.iter().position(|&x| x == i).unwrap();
        assert!(pos(3) < pos(1) && pos(3) < pos(2) && pos(1) < pos(0) && pos(2) < pos(0));
        assert_eq!(dag.transitive_dependents(3), vec![0, 1, 2]);
    }

    #[test]
    fn cycle_names_its_tools() {
        let err = Dag::new(&tools(&[
            ("a", &["c"]),
            ("b", &["a"]),
            ("c", &["b"]),
            ("d", &["a"]),
            ("e", &[]),
        ]))
        .unwrap_err();
        let mut members = err.cycle_members();
        members.sort();
        assert_eq!(members, vec!["a", "b", "c"]);
        assert!(err.to_string().contains("→"), "{err}");
    }

    #[test]
    fn self_dependency_is_a_cycle() {
        let err = Dag::new(&tools(&[("a", &["a"])])).unwrap_err();
        assert_eq!(err.cycle_members(), vec!["a"]);
    }

    #[test]
    fn two_separate_cycles_are_both_named() {
        let err = Dag::new(&tools(&[
            ("a", &["b"]),
            ("b", &["a"]),
            ("x", &["y"]),
            ("y", &["x"]),
        ]))
        .unwrap_err();
        assert_eq!(err.cycle_members().len(), 4);
    }

    #[test]
    fn unknown_dependency_and_duplicates_are_rejected() {
        assert_eq!(
            Dag::new(&tools(&[("a", &["zz"])])).unwrap_err(),
            DagError::UnknownDependency {
                tool: "a".into(),
                dependency: "zz".into()
            }
        );
        assert_eq!(
            Dag::new(&tools(&[("a", &[]), ("a", &[])])).unwrap_err(),
            DagError::DuplicateToolId("a".into())
        );
    }

    #[test]
    fn ready_queue_prefers_the_critical_path() {
        // "short" has no dependents; "long" heads a chain of three.
        let dag = Dag::new(&tools(&[
            ("short", &[]),
            ("long", &[]),
            ("l2", &["long"]),
            ("l3", &["l2"]),
        ]))
        .unwrap();
        let mut q = dag.queue();
        assert_eq!(q.pop(), Some(1));
        assert_eq!(q.pop(), Some(0));
        assert_eq!(q.pop(), None);
        assert_eq!(q.finish(1), vec![2]);
        assert_eq!(q.finish(0), Vec::<usize>::new());
        assert_eq!(q.pop(), Some(2));
        assert_eq!(q.finish(2), vec![3]);
        assert_eq!(q.pop(), Some(3));
        q.finish(3);
        assert!(q.is_done());
    }

    #[test]
    fn duplicate_dependency_entries_count_once() {
        let dag = Dag::new(&tools(&[("a", &[]), ("b", &["a", "a"])])).unwrap();
        let mut q = dag.queue();
        assert_eq!(q.pop(), Some(0));
        assert_eq!(q.finish(0), vec![1]);
    }
}
