//! The league's screens, served by `league serve` from the binary: the picker at `/`, a
//! tournament at `/tournament/{id}`, a season's leaderboard at
//! `/leaderboard/{league}/{season}`, a venue's cash games at `/cash/{venue}` and a TV
//! rotation at `/tv`.
//!
//! One page (`assets/dashboard/`: HTML, CSS and plain JavaScript with no dependency) is
//! embedded at build time and routes on its path in the browser. It reads as the public
//! role, over `POST /graphql` for what it reads once and over `graphql-transport-ws` at
//! `/graphql/ws` for what changes. Its assets sit under the release's version
//! (`/dashboard/{version}/...`) and are cached for a year; the pages themselves are not
//! cached, so an upgraded server is picked up by the next load. Both are gzip-compressed
//! for a client that accepts it.

use std::sync::LazyLock;

use actix_web::http::header;
use actix_web::middleware::Compress;
use actix_web::{HttpResponse, web};

/// The release, which names the assets' path.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The page, with its assets' path filled in.
static PAGE: LazyLock<String> = LazyLock::new(|| {
    include_str!("../assets/dashboard/index.html").replace("{{version}}", VERSION)
});

/// The page's assets: name, content type, bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "dashboard.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/dashboard/dashboard.js"),
    ),
    (
        "dashboard.css",
        "text/css; charset=utf-8",
        include_bytes!("../assets/dashboard/dashboard.css"),
    ),
];

/// The paths the page answers; it routes on them itself.
const PAGES: &[&str] = &[
    "/",
    "/tv",
    "/tournament/{id}",
    "/leaderboard/{league}/{season}",
    "/cash/{venue}",
];

pub fn routes(cfg: &mut web::ServiceConfig) {
    for path in PAGES {
        cfg.service(
            web::resource(*path)
                .wrap(Compress::default())
                .route(web::get().to(page)),
        );
    }
    cfg.service(
        web::resource("/dashboard/{version}/{file}")
            .wrap(Compress::default())
            .route(web::get().to(asset)),
    );
}

/// What the page may load and connect to: this server only (a logo is a `data:` image),
/// so a name or a logo can never bring a script or a request to another host.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'self'";

async fn page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(PAGE.as_str())
}

/// An asset of this release is cached for a year (its path changes with the release); an
/// asset asked for under another release's path (a page loaded before an upgrade) is
/// answered with this release's file, not to be cached.
async fn asset(path: web::Path<(String, String)>) -> HttpResponse {
    let (version, file) = path.into_inner();
    match ASSETS.iter().find(|(name, _, _)| *name == file.as_str()) {
        Some((_, content_type, bytes)) => HttpResponse::Ok()
            .content_type(*content_type)
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .insert_header((
                header::CACHE_CONTROL,
                if version == VERSION {
                    "public, max-age=31536000, immutable"
                } else {
                    "no-cache"
                },
            ))
            .body(*bytes),
        None => HttpResponse::NotFound()
            .content_type("text/plain; charset=utf-8")
            .body(format!("no dashboard asset {:?}", file.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every script and stylesheet the page names is embedded under this release's path,
    /// and nothing is fetched from another host.
    #[test]
    fn the_page_names_only_embedded_assets() {
        let prefix = format!("/dashboard/{VERSION}/");
        let mut named = 0;
        for attr in ["src=\"", "href=\""] {
            for (i, _) in PAGE.match_indices(attr) {
                let rest = &PAGE[i + attr.len()..];
                let url = &rest[..rest.find('"').unwrap_or(0)];
                if url == "data:," {
                    continue;
                }
                let file = url
                    .strip_prefix(prefix.as_str())
                    .unwrap_or_else(|| panic!("{url} is not served by the binary"));
                assert!(ASSETS.iter().any(|(name, _, _)| *name == file), "{url}");
                named += 1;
            }
        }
        assert_eq!(named, ASSETS.len());
        for (name, _, bytes) in ASSETS {
            let text = std::str::from_utf8(bytes).unwrap_or_default();
            assert!(
                !text.contains("http://") && !text.contains("https://"),
                "{name}"
            );
        }
    }
}
