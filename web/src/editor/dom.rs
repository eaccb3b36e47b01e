//! Applies the model's [`Op`]s to a real container of rows, grouped in chunk `<div>`s
//! ([`super::chunks`]). Kept apart from the model so that everything deciding *what* to draw
//! is tested natively.

use super::chunks::{ChunkOp, Chunks};
use super::model::Op;
use web_sys::{Element, HtmlCollection};

/// The rows of one container (the code layer or the gutter) as the DOM holds them.
pub struct RowList {
    chunks: Chunks,
}

impl Default for RowList {
    fn default() -> Self {
        RowList { chunks: Chunks::even(0) }
    }
}

/// A chunk's `<div>`: its height comes from `--n`, its row count.
fn chunk_open(rows: usize) -> String {
    format!("<div class=\"ce-chunk\" style=\"--n: {rows}\">")
}

fn set_count(chunk: &Element, rows: usize) {
    let _ = chunk.set_attribute("style", &format!("--n: {rows}"));
}

fn item(list: &HtmlCollection, i: usize) -> Option<Element> {
    list.item(u32::try_from(i).ok()?)
}

impl RowList {
    pub fn apply(&mut self, container: &Element, ops: &[Op]) {
        for op in ops {
            match op {
                Op::Splice { at, remove, rows } => {
                    if *at == 0 && *remove >= self.chunks.rows() {
                        self.reset(container, rows);
                    } else {
                        self.splice(container, *at, *remove, rows);
                    }
                }
                Op::Redraw { at, row } => {
                    let Some((c, offset)) = self.chunks.locate(*at) else { continue };
                    let row_el = item(&container.children(), c).and_then(|chunk| item(&chunk.children(), offset));
                    if let Some(el) = row_el {
                        el.set_outer_html(row);
                    }
                }
            }
        }
    }

    fn reset(&mut self, container: &Element, rows: &[String]) {
        self.chunks = Chunks::even(rows.len());
        let mut html =
            String::with_capacity(rows.iter().map(String::len).sum::<usize>() + 64 * self.chunks.sizes().len());
        let mut next = rows.iter();
        for &n in self.chunks.sizes() {
            html.push_str(&chunk_open(n));
            for row in next.by_ref().take(n) {
                html.push_str(row);
            }
            html.push_str("</div>");
        }
        container.set_inner_html(&html);
    }

    fn splice(&mut self, container: &Element, at: usize, remove: usize, rows: &[String]) {
        let ops = self.chunks.splice(at, remove, rows.len());
        let doc = container.owner_document();
        for op in ops {
            let chunks = container.children();
            match op {
                ChunkOp::Remove { chunk, offset, count } => {
                    let Some(chunk_el) = item(&chunks, chunk) else { continue };
                    // Walk siblings: indexing the live list after each removal is quadratic.
                    let mut next = item(&chunk_el.children(), offset);
                    for _ in 0..count {
                        let Some(el) = next else { break };
                        next = el.next_element_sibling();
                        el.remove();
                    }
                    set_count(&chunk_el, chunk_el.child_element_count() as usize);
                }
                ChunkOp::Insert { chunk, offset, rows: range } => {
                    let Some(chunk_el) = item(&chunks, chunk) else { continue };
                    let html = rows.get(range).unwrap_or_default().concat();
                    let done = match item(&chunk_el.children(), offset) {
                        Some(el) => el.insert_adjacent_html("beforebegin", &html),
                        None => chunk_el.insert_adjacent_html("beforeend", &html),
                    };
                    if done.is_err() {
                        gloo::console::warn!("editor: could not insert rows");
                    }
                    set_count(&chunk_el, chunk_el.child_element_count() as usize);
                }
                ChunkOp::Split { chunk, sizes } => {
                    let (Some(chunk_el), Some(doc)) = (item(&chunks, chunk), doc.as_ref()) else { continue };
                    let first = sizes.first().copied().unwrap_or(0);
                    let mut row = item(&chunk_el.children(), first);
                    let mut prev = chunk_el.clone();
                    for &n in sizes.iter().skip(1) {
                        let Ok(piece) = doc.create_element("div") else { break };
                        piece.set_class_name("ce-chunk");
                        set_count(&piece, n);
                        for _ in 0..n {
                            let Some(el) = row else { break };
                            row = el.next_element_sibling();
                            let _ = piece.append_child(&el);
                        }
                        let _ = prev.insert_adjacent_element("afterend", &piece);
                        prev = piece;
                    }
                    set_count(&chunk_el, first);
                }
                ChunkOp::Drop { chunk } => {
                    if let Some(el) = item(&chunks, chunk) {
                        el.remove();
                    }
                }
            }
        }
    }
}
