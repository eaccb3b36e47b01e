//! How the dominator views name vertices: blocks by their label, the virtual exit by a name no
//! block can have (labels have no spaces), so it can also be a node id and a `data-block`.

use optlab_core::dom::DomNode;
use optlab_core::{BlockId, Function};

/// The virtual exit's name in drawings, tables and step texts.
pub const VIRTUAL_EXIT: &str = "exit (virtual)";

pub fn block_name(f: &Function, b: BlockId) -> String {
    f.blocks.get(b).map_or_else(|| b.to_string(), |blk| blk.name.clone())
}

pub fn node_name(f: &Function, n: DomNode) -> String {
    match n {
        DomNode::Block(b) => block_name(f, b),
        DomNode::VirtualExit => VIRTUAL_EXIT.to_string(),
    }
}

/// The name in a pill under a tree node, where room is short: the virtual exit is `(exit)`
/// (still no block's name), so its many children's pills do not run into each other.
pub fn short_name(f: &Function, n: DomNode) -> String {
    match n {
        DomNode::Block(b) => block_name(f, b),
        DomNode::VirtualExit => "(exit)".to_string(),
    }
}

/// The block a name from a drawing or the state refers to (`None` for the virtual exit and
/// for names the function does not have).
pub fn block_named(f: &Function, name: &str) -> Option<BlockId> {
    f.layout.iter().copied().find(|&b| f.blocks.get(b).is_some_and(|blk| blk.name == name))
}
