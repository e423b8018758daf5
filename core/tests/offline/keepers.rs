//! Keepers and start budgets: a start budget answers from the store while the login goes on,
//! which the keeper follows; two keepers from one offline verdict spend one use.

use super::*;

#[test]
pub(crate) fn a_start_budget_answers_from_the_store_and_the_keeper_follows_the_login() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    let mut budgeted = lab.options();
    budgeted.start_budget = Some(Duration::from_millis(300));
    // Nothing stored yet: the budget does not apply; the server's answer is awaited.
    lab.client_with(budgeted.clone())
        .single_login(&card, "M", None)
        .expect("online");

    // A black-holed server: the verdict comes from the store in about 300 ms.
    let hole = BlackHole::at("127.0.0.1:0");
    let client =
        Client::with_options(&hole.url(), &lab.app_id, APP_KEY, budgeted.clone()).expect("client");
    let started = Instant::now();
    let offline = client
        .single_login(&card, "M", None)
        .expect("from the store");
    let took = started.elapsed();
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    assert!(
        took >= Duration::from_millis(290) && took < Duration::from_millis(600),
        "{took:?}"
    );
    let info = offline.reply().offline().expect("offline");
    assert_eq!(info.reason_code, codes::ERR_TIMEOUT);
    // Dropping the client stops the login still going on in the background at once.
    let stopping = Instant::now();
    drop(client);
    assert!(
        stopping.elapsed() < Duration::from_secs(1),
        "{:?}",
        stopping.elapsed()
    );

    // A slow server that answers after the budget: the keeper reports it confirmed online.
    lab.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(lab.app_id.clone()),
        action: Some("SingleLogin".into()),
        count: Some(1),
        delay_ms: 1500,
    });
    let client = Arc::new(lab.client_with(budgeted.clone()));
    let offline = client
        .single_login(&card, "M", None)
        .expect("from the store");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    let (events, callback) = recorder();
    let keeper = Keeper::start_from(Arc::clone(&client), offline.reply(), fast(), Some(callback))
        .expect("keeper");
    assert!(eventually(PATIENCE, || first(&events, EventKind::Online).is_some()));
    assert!(eventually(PATIENCE, || first(&events, EventKind::Alive).is_some()));
    assert_eq!(keeper.status().state, KeeperState::Alive);
    assert!(first(&events, EventKind::Ended).is_none());
    drop(keeper);

    // The same, banned meanwhile: the store answers within the budget, then the keeper
    // reports the end with the reason, and the stored verdict is cleared.
    lab.sandbox
        .update_card(&lab.app_id, &card, "disable", Some("refunded by the bank"))
        .expect("disable");
    lab.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(lab.app_id.clone()),
        action: Some("SingleLogin".into()),
        count: Some(1),
        delay_ms: 1500,
    });
    let offline = client
        .single_login(&card, "M", None)
        .expect("from the store");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    let (events, callback) = recorder();
    let _keeper = Keeper::start_from(Arc::clone(&client), offline.reply(), fast(), Some(callback))
        .expect("keeper");
    assert!(eventually(PATIENCE, || first(&events, EventKind::Ended).is_some()));
    let ended = first(&events, EventKind::Ended).expect("ended");
    assert_eq!(ended.code, codes::DISABLED);
    assert_eq!(ended.remark.as_deref(), Some("refunded by the bank"));
    assert!(first(&events, EventKind::Online).is_none());
    lab.sandbox.pause();
    let err = lab
        .client_with(budgeted)
        .single_login(&card, "M", None)
        .expect_err("cleared");
    assert_eq!(err.kind(), ErrorKind::Network);
}

/// One login per offline verdict: two keepers started from the same offline verdict of a
/// count card confirm it with one login sent again (one use spent), and both go online
/// with it.
#[test]
pub(crate) fn two_keepers_from_one_offline_verdict_spend_one_use() {
    let mut lab = Lab::new();
    let card = "OFFL-COUN-T000-0001";
    lab.sandbox
        .load(
            Fixtures::from_value(json!({"cards": [{"app_id": lab.app_id, "card": card,
                "type_name": "count", "kind": "count", "total": 5, "used": 0}]}))
            .expect("card"),
        )
        .expect("load");
    let used = |lab: &Lab| lab.sandbox.card(&lab.app_id, card).expect("card")["used"].as_u64();
    lab.client().single_login(card, "M", None).expect("online");
    assert_eq!(used(&lab), Some(1));
    lab.sandbox.pause();
    let client = Arc::new(lab.client());
    let offline = client.single_login(card, "M", None).expect("offline");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    let (first_events, first_callback) = recorder();
    let (second_events, second_callback) = recorder();
    let keepers = [
        Keeper::start_from(
            Arc::clone(&client),
            offline.reply(),
            fast(),
            Some(first_callback),
        )
        .expect("keeper"),
        Keeper::start_from(
            Arc::clone(&client),
            offline.reply(),
            fast(),
            Some(second_callback),
        )
        .expect("keeper"),
    ];
    assert!(eventually(PATIENCE, || first(
        &first_events,
        EventKind::Trouble
    )
    .is_some()));
    lab.sandbox.resume().expect("back online");
    for events in [&first_events, &second_events] {
        assert!(eventually(PATIENCE, || first(events, EventKind::Online).is_some()));
    }
    for keeper in &keepers {
        assert!(eventually(PATIENCE, || keeper.status().state == KeeperState::Alive));
    }
    assert_eq!(used(&lab), Some(2), "one use for the offline start");
    let logins = lab
        .sandbox
        .request_log(Some(&lab.app_id))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some("SingleLogin") && entry.code == 200)
        .count();
    assert_eq!(
        logins, 2,
        "the first login and one to confirm the offline verdict"
    );
}
