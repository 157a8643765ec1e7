//! GraphiQL, the in-browser IDE at `GET /graphql`, served entirely from the binary.
//!
//! The page and its scripts (GraphiQL 4, React 18) are embedded at build time from
//! `assets/graphiql/` (fetched from the npm registry by `tools/vendor-graphiql`, which
//! checks the registry's integrity hashes), so the IDE works on a venue's network with no
//! internet. Subscriptions in the IDE use `/graphql/ws`.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

const PAGE: &str = include_str!("../assets/graphiql/index.html");

/// The page's assets: name, content type, bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "graphiql.min.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/graphiql/graphiql.min.js"),
    ),
    (
        "graphiql.min.css",
        "text/css; charset=utf-8",
        include_bytes!("../assets/graphiql/graphiql.min.css"),
    ),
    (
        "react.production.min.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/graphiql/react.production.min.js"),
    ),
    (
        "react-dom.production.min.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/graphiql/react-dom.production.min.js"),
    ),
];

/// `GET /graphql` for a browser.
pub async fn page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(PAGE)
}

/// `GET /graphiql/{file}`: one of the page's embedded assets.
pub async fn asset(file: web::Path<String>) -> HttpResponse {
    match ASSETS.iter().find(|(name, _, _)| *name == file.as_str()) {
        Some((_, content_type, bytes)) => HttpResponse::Ok()
            .content_type(*content_type)
            // The files change only with the binary; a day's cache spares a pub's Wi-Fi.
            .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
            .body(*bytes),
        None => HttpResponse::NotFound()
            .content_type("text/plain; charset=utf-8")
            .body(format!("no GraphiQL asset {:?}", file.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every script and stylesheet the page names is embedded, and none is fetched from
    /// another host.
    #[test]
    fn the_page_names_only_embedded_assets() {
        let mut named = 0;
        for attr in ["src=\"", "href=\""] {
            for (i, _) in PAGE.match_indices(attr) {
                let rest = &PAGE[i + attr.len()..];
                let url = &rest[..rest.find('"').unwrap()];
                let file = url
                    .strip_prefix("/graphiql/")
                    .unwrap_or_else(|| panic!("{url} is not served by the binary"));
                assert!(ASSETS.iter().any(|(name, _, _)| *name == file), "{url}");
                named += 1;
            }
        }
        assert_eq!(named, ASSETS.len());
    }
}
