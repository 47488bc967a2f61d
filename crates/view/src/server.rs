//! The HTTP side: the embedded page and its endpoints.
//!
//! | path | what |
//! |---|---|
//! | `GET /` | the page (embedded; no external resources) |
//! | `GET /api/frame.jpg?after=N[&width=W]` | the next picture after sequence N (waits up to 2 s), decimated to fit W device pixels (the widest page asking wins) |
//! | `GET /api/snapshot.png` | the latest frame at full resolution |
//! | `GET /api/stats` | [`crate::Stats`] as JSON |
//! | `GET /metrics` | the same in Prometheus text format |
//! | `GET /api/controls` | the controls' current values |
//! | `POST /api/control` | `{"feature": .., "value": ..}`; 400 with the camera's reason |
//! | `POST /api/contrast` | `{"mode": "auto" \| "full"}` |

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use crate::controls::ControlError;
use crate::render::Contrast;
use crate::shared::Shared;

/// The page, embedded in the binary.
const PAGE: &str = include_str!("page.html");

/// Longest wait for a new picture.
const FRAME_WAIT: Duration = Duration::from_secs(2);

type AppState = State<Arc<Shared>>;

pub(crate) async fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    shutdown: tokio::sync::oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let app = Router::new()
        .route("/", get(page))
        .route("/api/frame.jpg", get(frame))
        .route("/api/snapshot.png", get(snapshot))
        .route("/api/stats", get(stats))
        .route("/metrics", get(metrics))
        .route("/api/controls", get(controls))
        .route("/api/control", post(control))
        .route("/api/contrast", post(contrast))
        .with_state(shared);
    let _ = axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = shutdown.await;
        })
        .await;
}

async fn page(State(shared): AppState) -> Html<&'static str> {
    shared
        .page_loads
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Html(PAGE)
}

#[derive(Deserialize)]
struct After {
    #[serde(default)]
    after: u64,
    /// The width, in device pixels, the page shows the picture at.
    width: Option<u32>,
}

fn error(status: StatusCode, message: String) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

async fn frame(State(shared): AppState, Query(q): Query<After>) -> Response {
    if let Some(w) = q.width {
        shared
            .page_width
            .fetch_max(w, std::sync::atomic::Ordering::Relaxed);
    }
    let mut rx = shared.picture_seq.subscribe();
    let _ = tokio::time::timeout(FRAME_WAIT, rx.wait_for(|s| *s > q.after)).await;
    let Some(picture) = shared.picture.load_full() else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "no frame yet".into());
    };
    if let Some(e) = &picture.error {
        return error(StatusCode::UNPROCESSABLE_ENTITY, e.clone());
    }
    shared
        .served
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    (
        [
            (header::CONTENT_TYPE, "image/jpeg".to_string()),
            (header::CACHE_CONTROL, "no-store".to_string()),
            (
                header::HeaderName::from_static("x-frame-seq"),
                picture.seq.to_string(),
            ),
            (
                header::HeaderName::from_static("x-frame-size"),
                format!("{}x{}", picture.frame_width, picture.frame_height),
            ),
            (
                header::HeaderName::from_static("x-missing-rows"),
                picture.missing_rows.to_string(),
            ),
        ],
        picture.jpeg.clone(),
    )
        .into_response()
}

async fn snapshot(State(shared): AppState) -> Response {
    let (_, frame) = shared.slot.latest();
    let Some(frame) = frame else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "no frame yet".into());
    };
    let encoded = tokio::task::spawn_blocking(move || {
        crate::encode::png_snapshot(&frame).map(|png| (png, frame.block_id))
    })
    .await;
    match encoded {
        Ok(Ok((png, id))) => (
            [
                (header::CONTENT_TYPE, "image/png".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"frame-{id}.png\""),
                ),
            ],
            png,
        )
            .into_response(),
        Ok(Err(e)) => error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn stats(State(shared): AppState) -> Response {
    Json(shared.current_stats()).into_response()
}

async fn metrics(State(shared): AppState) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        crate::stats::prometheus(&shared.current_stats()),
    )
        .into_response()
}

async fn controls(State(shared): AppState) -> Response {
    let Some(c) = shared.controls.clone() else {
        return Json(serde_json::json!({ "available": false, "controls": [] })).into_response();
    };
    match tokio::task::spawn_blocking(move || c.read()).await {
        Ok(Ok(values)) => {
            Json(serde_json::json!({ "available": true, "controls": values })).into_response()
        }
        Ok(Err(e)) => error(StatusCode::BAD_GATEWAY, e.to_string()),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

#[derive(Deserialize)]
struct Write {
    feature: String,
    value: String,
}

async fn control(State(shared): AppState, Json(w): Json<Write>) -> Response {
    let Some(c) = shared.controls.clone() else {
        return error(
            StatusCode::NOT_FOUND,
            "this view has no camera controls".into(),
        );
    };
    let result = tokio::task::spawn_blocking(move || c.write(&w.feature, &w.value)).await;
    match result {
        Ok(Ok(())) => Json(serde_json::json!({ "ok": true })).into_response(),
        Ok(Err(e @ ControlError { .. })) => error(StatusCode::BAD_REQUEST, e.to_string()),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

#[derive(Deserialize)]
struct ContrastMode {
    mode: Contrast,
}

async fn contrast(State(shared): AppState, Json(m): Json<ContrastMode>) -> Response {
    shared.set_contrast(m.mode);
    Json(serde_json::json!({ "ok": true })).into_response()
}
