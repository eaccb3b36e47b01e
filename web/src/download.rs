//! Saving text the user asked for (exports, the after-code) as a file download.

/// Offers `text` as a download named `file`. Returns why not when the browser refuses
/// (no document, blob URLs disabled); natively it does nothing.
pub fn download_text(file: &str, mime: &str, text: &str) -> Result<(), String> {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let err = |e: wasm_bindgen::JsValue| format!("could not save {file}: {e:?}");
        let parts = web_sys::js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type(mime);
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(err)?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(err)?;
        let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
        let a: web_sys::HtmlAnchorElement = doc.create_element("a").map_err(err)?.unchecked_into();
        a.set_href(&url);
        a.set_download(file);
        a.click();
        web_sys::Url::revoke_object_url(&url).map_err(err)?;
        Ok(())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (file, mime, text);
        Ok(())
    }
}

