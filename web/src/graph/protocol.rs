//! Messages between the page and the layout worker (`src/bin/optlab-layout.rs`), as JSON
//! strings: the worker says [`Reply::Ready`] once it can take requests, then answers each
//! [`Request`] with [`Reply::Done`] (or [`Reply::Failed`] for a request it could not read).

use super::{layout, Graph, Layout, Style};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    pub graph: Graph,
    pub style: Style,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    Ready,
    Done { id: u64, layout: Layout },
    Failed { id: Option<u64>, error: String },
}

impl Reply {
    pub fn to_json(&self) -> String {
        // Serializing plain data with finite floats cannot fail; an error still gets an answer.
        serde_json::to_string(self).unwrap_or_else(|e| format!(r#"{{"Failed":{{"id":null,"error":"{e}"}}}}"#))
    }
}

/// What the worker does with one message: lay the graph out, or say why not.
pub fn answer(message: &str) -> Reply {
    match serde_json::from_str::<Request>(message) {
        Ok(req) => Reply::Done { id: req.id, layout: layout(&req.graph, &req.style) },
        Err(e) => Reply::Failed { id: None, error: format!("bad layout request: {e}") },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fixtures::diamond;

    #[test]
    fn a_request_round_trips_into_the_same_layout_as_on_the_main_thread() {
        let g = diamond();
        let style = Style::with_badges();
        let msg = serde_json::to_string(&Request { id: 7, graph: g.clone(), style: style.clone() }).unwrap();
        let reply: Reply = serde_json::from_str(&answer(&msg).to_json()).unwrap();
        assert_eq!(reply, Reply::Done { id: 7, layout: layout(&g, &style) });
    }

    #[test]
    fn garbage_gets_a_failure_not_a_panic() {
        for bad in ["", "{", "null", r#"{"id":1}"#, r#"{"id":-1,"graph":{"nodes":[],"edges":[]},"style":{}}"#] {
            match answer(bad) {
                Reply::Failed { id: None, error } => assert!(error.starts_with("bad layout request"), "{error}"),
                r => panic!("{bad}: {r:?}"),
            }
        }
        let ready: Reply = serde_json::from_str(&Reply::Ready.to_json()).unwrap();
        assert_eq!(ready, Reply::Ready);
    }
}
