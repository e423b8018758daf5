// The action table: every action of the service, written once.
//
// Each entry is one typed call: its method name (the C function is `verify_` + the same
// name), the wire name of the action, whether it changes state on the server (then it is
// never sent twice once it may have reached the server), its purpose (a card login, an
// account login, a social login, a renewal, a heartbeat of the session kind argument, a
// password change, or other: what the offline verdicts and a reply's session kind go by),
// its parameters (name, wire key, whether it is required, optional, or the session kind,
// and what it stands for in a login: `as identity`, `as machine`, `as password`,
// `as new_password`, `as token`: the login or heartbeat a request carries to the offline
// store), fixed parameters
// in brackets (sent first), and its reply view (`pending` after it when the action may
// answer 201, pending). Each reply view lists its typed fields, `always` after the type of
// one the spec gives on every success (a binding may type it as not optional; an offline
// verdict keeps all but the token, so no token is `always`).
//
// From this table come: the request builders ([`super::request`]), the reply views, the
// `Client` methods, and [`super::ACTIONS`] / [`super::REPLIES`], from which the repository's
// generator (`cargo run -p verify-codegen`) writes the `extern "C"` functions, the C++, C#
// and Python calls and typed results, and the docs. Adding an action is one entry here plus
// the sandbox's service of it and its tests (CONTRIBUTING.md, "Adding an action").
//
// Parameter names are the service's primary names (`Card`, `Mac`, `UserName`, ...). The six
// actions the service's documentation does not detail follow the sandbox's table
// (`sandbox/README.md`); their typed fields are accessors that may be absent, so a server
// that names them otherwise never fails a call it answered.

replies! {
    /// Success of `SingleLogin` (card mode).
    CardLogin {
        token: str "the session token (40 characters) for a card heartbeat",
        status: str always "`active`",
        is_times: bool always "true for a count card",
        card_type: str always "the card type's display name",
        expire_at: time always "`YYYY-MM-DD HH:mm:ss`; far future for a count card",
        total: int "uses the count card was sold with (count cards only)",
        used: int "uses consumed so far (count cards only)",
        remaining: int "uses left; 0 makes the card invalid (count cards only)",
    }
    /// Success of a password `UserLogin` without a card, or of a social login.
    UserSession {
        username: str always "the account's username",
        device_id: str always "the bound machine code; empty if unbound",
        expire_at: time always "`YYYY-MM-DD HH:mm:ss`",
        status: str always "`active`",
        token: str "the session token (40 characters) for a user heartbeat",
        remark: str always "back-office note (social login: the social account's display name)",
    }
    /// Success of `UserLogin` with a card (the renewal branch): no token.
    Renewal {
        username: str always "the account's username",
        expire_at: time always "the new expiry",
        added_days: int always "days added",
        status: str always "`active`",
    }
    /// Success of `UserRegin`. Without a card the account is created already expired and
    /// no token is returned; with a duration card it is active and has a token.
    Registration {
        username: str always "the account's username",
        user_id: int always "the account identifier",
        expire_at: time always "the expiry (the registration time without a card)",
        token: str "the session token, when registered with a card",
        status: str "`active`, when registered with a card",
    }
    /// Success of `UpdatePwd`.
    PasswordChanged {
        username: str "the account's username",
    }
    /// Success of `ChangeBind`.
    Rebind {
        username: str always "the account's username",
        device_id: str always "the new machine code",
        bind_count: int always "rebinds used, this one included",
        bind_limit: int always "the product's rebind limit (0: no limit)",
    }
    /// Success of `UserHeartbeat`.
    Heartbeat {
        expire_at: time always "the session's expiry",
        status: str always "`active`",
        msg: str always "a back-office message, delivered once; empty when none",
    }
    /// Success of `UserRecharge`.
    Recharge {
        username: str always "the account's username",
        expire_at: time always "the new expiry",
        added_days: str always "the amount added with its unit (a string in this action)",
        status: str always "`active`",
    }
    /// Success of `GetLatestVersion`.
    LatestVersion {
        version: str "the latest version number",
        changelog: str "its change log",
        download_url: str "where to download it",
        force_update: bool "whether the back office requires the update",
        has_update: bool "whether it is newer than the version given",
    }
    /// Success of `GetBulletin`.
    Bulletin {
        bulletin: str "the bulletin text",
        updated_at: time "when it was last changed",
    }
    /// Success of `GetVariable` with a name.
    Variable {
        name: str "the variable's name",
        value: str "its value",
    }
    /// Success of `GetVariable` without a name: every variable.
    Variables {
        variables: map "every variable, name to value",
    }
    /// Success of `GetUserInfo`.
    UserInfo {
        username: str "the account's username",
        user_id: int "the account identifier",
        device_id: str "the bound machine code; empty if unbound",
        expire_at: time "the expiry",
        status: str "`active`, `expired` or `banned`",
        bind_count: int "rebinds used",
        bind_limit: int "the product's rebind limit (0: no limit)",
        remark: str "back-office note",
        created_at: time "registration time",
    }
    /// Success of `GetCardInfo`: the card's state, consuming nothing.
    CardInfo {
        card: str "the card key",
        card_type: str "the card type's display name",
        status: str "`unused`, `active`, `expired`, `exhausted`, `used`, `disabled` or `refunded`",
        is_times: bool "true for a count card",
        device_id: str "the bound machine code; empty when not bound",
        activated_at: time "first use; empty when unused",
        expire_at: time "expiry; empty when unused",
        duration: int "duration in `duration_type` units",
        duration_type: str "`day` or `hour`",
        total: int "uses the count card was sold with (count cards only)",
        used: int "uses consumed so far (count cards only)",
        remaining: int "uses left (count cards only)",
    }
    /// Step 1 of a social login: the authorization URL to show, and the state to poll with.
    SocialStart {
        url: str always "the external authorization link",
        state: str always "the value to pass to the social poll or wait",
    }
    /// Step 1 of a social registration: the authorization URL. The account is created when
    /// the user completes the authorization.
    SocialRegistration {
        url: str always "the external authorization link (its `state` parameter is the state)",
    }
}

actions! {
    /// `SingleLogin` (card mode): activates the card on first use and binds it to `mac`;
    /// later logins from the same machine refresh it (a count card spends one use). Never
    /// sent twice by a retry.
    single_login: "SingleLogin", changes_state, card_login, CardLogin {
        card: required "Card" as identity,
        mac: required "Mac" as machine,
        device_name: optional "DeviceName",
    }
    /// `UserLogin` with username and password (account mode). `mac` is strongly
    /// recommended (rebind detection).
    user_login: "UserLogin", read_only, account_login, UserSession {
        username: required "UserName" as identity,
        password: required "Password" as password,
        mac: optional "Mac" as machine,
    }
    /// `UserLogin` with a recharge card: renews the account and returns no token (log in
    /// again without a card for one). Never sent twice by a retry.
    user_login_with_card: "UserLogin", changes_state, renewal, Renewal {
        username: required "UserName",
        password: required "Password",
        card: required "Card",
        mac: optional "Mac",
    }
    /// `UserRegin`: registers an account, activated when a duration card is given. Never
    /// sent twice by a retry.
    user_register: "UserRegin", changes_state, other, Registration {
        username: required "UserName",
        password: required "Password",
        card: optional "Card",
        mac: optional "Mac",
        device_name: optional "DeviceName",
    }
    /// `UpdatePwd`: checks the old password and sets the new one. Never sent twice by a
    /// retry.
    update_password: "UpdatePwd", changes_state, password_change, PasswordChanged {
        username: required "UserName" as identity,
        old_password: required "Password",
        new_password: required "NewPassword" as new_password,
    }
    /// `ChangeBind`: binds the account to a new machine code. Never sent twice by a retry.
    change_bind: "ChangeBind", changes_state, other, Rebind {
        username: required "UserName",
        password: required "Password",
        new_mac: required "Mac",
    }
    /// `UserHeartbeat`: keeps a card or account session alive and collects a back-office
    /// message (delivered once).
    heartbeat: "UserHeartbeat", read_only, heartbeat, Heartbeat {
        token: required "Token" as token,
        kind: session "Type",
        ip: optional "IP",
    }
    /// `UserRecharge`: adds a duration card's time to an account (no password). Never sent
    /// twice by a retry.
    user_recharge: "UserRecharge", changes_state, other, Recharge {
        username: required "UserName",
        card: required "Card",
    }
    /// `GetLatestVersion`, optionally with the program's current version.
    get_latest_version: "GetLatestVersion", read_only, other, LatestVersion {
        current_version: optional "Version",
    }
    /// `GetBulletin`: the program's bulletin.
    get_bulletin: "GetBulletin", read_only, other, Bulletin {}
    /// `GetVariable` for one variable.
    get_variable: "GetVariable", read_only, other, Variable {
        name: required "Name",
    }
    /// `GetVariable` for every variable.
    get_variables: "GetVariable", read_only, other, Variables {}
    /// `GetUserInfo`: the account's details.
    get_user_info: "GetUserInfo", read_only, other, UserInfo {
        username: required "UserName",
        password: required "Password",
    }
    /// `GetCardInfo`: the card's state, expiry and binding, consuming nothing.
    get_card_info: "GetCardInfo", read_only, other, CardInfo {
        card: required "Card",
    }
    /// Social login step 1: the URL to show the user, and the state to poll with.
    social_login_start: "UserLogin", read_only, social_login, SocialStart ["LoginType" = "social"] {
        mac: optional "Mac",
    }
    /// Social login step 2, once: code 201 (pending) while the user has not authorized;
    /// 200 with the login payload (`remark` is the social display name); 1016 when the
    /// identity is not bound. Its success consumes the state, so it is never sent twice.
    social_login_poll: "UserLogin", changes_state, social_login, UserSession pending
        ["LoginType" = "social"] {
        state: required "State",
        mac: optional "Mac",
    }
    /// Social registration step 1: the URL to show the user. Never sent twice by a retry.
    social_register_start: "UserRegin", changes_state, other, SocialRegistration ["BindSocial" = "1"] {
        username: required "UserName",
        mac: optional "Mac",
        device_name: optional "DeviceName",
    }
}
