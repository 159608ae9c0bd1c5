//! Named user locks and SLEEP over the wire (issue 19, `sql/src/userlocks.rs`): a GET_LOCK
//! waiting for another connection's lock gets it when the holder disconnects, KILL QUERY ends
//! a waiting GET_LOCK (NULL, as mysqld's `Item_func_get_lock` when killed) and a SLEEP (1,
//! without error, as `Item_func_sleep`), and a GET_LOCK's timeout bounds its wait (0).

mod support;

use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::Conn;

async fn first(c: &mut Conn, sql: &str) -> Option<i64> {
    c.query_first::<Option<i64>, _>(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}")).flatten()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_locks_wait_time_out_are_killed_and_go_with_their_connection() {
    let dir = tempfile::tempdir().expect("tempdir");
    let srv = support::start(&dir.path().join("binlogd"), &["--initialize-insecure"]);
    let mut a = support::sql::conn(srv.port).await;
    let mut b = support::sql::conn(srv.port).await;
    let mut root = support::sql::conn(srv.port).await;
    assert_eq!(first(&mut a, "SELECT GET_LOCK('job', 0)").await, Some(1));
    // The timeout bounds the wait.
    let t = Instant::now();
    assert_eq!(first(&mut b, "SELECT GET_LOCK('job', 0.3)").await, Some(0));
    assert!(t.elapsed() >= Duration::from_millis(250), "{:?}", t.elapsed());
    // KILL QUERY ends a wait without bound: NULL.
    let b_id = first(&mut b, "SELECT CONNECTION_ID()").await.expect("id");
    let waiter = tokio::spawn(async move {
        let r = first(&mut b, "SELECT GET_LOCK('job', -1)").await;
        (b, r)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiter.is_finished(), "GET_LOCK waits for the holder");
    root.query_drop(format!("KILL QUERY {b_id}")).await.expect("kill");
    let (mut b, r) = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("the killed wait ends")
        .expect("task");
    assert_eq!(r, None);
    // A waiter gets the lock when its holder disconnects.
    let waiter = tokio::spawn(async move {
        let r = first(&mut b, "SELECT GET_LOCK('job', 20)").await;
        (b, r)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiter.is_finished());
    drop(a);
    let (mut b, r) = tokio::time::timeout(Duration::from_secs(15), waiter)
        .await
        .expect("the disconnect releases the lock")
        .expect("task");
    assert_eq!(r, Some(1));
    assert_eq!(
        first(&mut root, "SELECT IS_USED_LOCK('job')").await,
        Some(first(&mut b, "SELECT CONNECTION_ID()").await.expect("id"))
    );
    // KILL QUERY ends a SLEEP early; it answers 1.
    let waiter = tokio::spawn(async move {
        let t = Instant::now();
        let r = first(&mut b, "SELECT SLEEP(30)").await;
        (r, t.elapsed())
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    root.query_drop(format!("KILL QUERY {b_id}")).await.expect("kill");
    let (r, took) =
        tokio::time::timeout(Duration::from_secs(10), waiter).await.expect("ends").expect("task");
    assert_eq!(r, Some(1));
    assert!(took < Duration::from_secs(10), "{took:?}");
}
