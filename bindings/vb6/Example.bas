Attribute VB_Name = "VerifyExample"
' verify.dll from VB6: add verify.bas (generated, every Declare) and this module to the project.
' A form calls VerifyStart from Form_Load, CardLogin / AccountLogin / ChangeBind / Diagnose
' from its buttons, KeeperTick from a Timer's Timer event (Interval 1000), VerifyStop from
' Form_Unload. Use the x86 verify.dll. tests/platforms/windows/easy_vb6.rs checks that every
' call here is declared with as many arguments.
Option Explicit

Private client As Long
Private machine As String
Private keeper As Long

Public Function VerifyStart() As Boolean
    Dim options As Long, code As Long, check As Long, p As Long, outcome As Long
    ' VB6 strings go out in the system code page: say so before any other call
    verify_set_code_page VERIFY_CODE_PAGE_SYSTEM
    If verify_abi_version() <> VERIFY_ABI_VERSION_H Then
        MsgBox "verify.dll is not the version this program was built with"
        Exit Function
    End If
    ' options: a mirror, your own CA, a proxy, offline verdicts
    verify_client_options_new options
    verify_client_options_add_mirror options, "https://backup.example.com"
    If Dir$(App.Path & "\ca.pem") <> "" Then
        verify_client_options_add_root_file options, App.Path & "\ca.pem"
    End If
    If GetSetting("Example", "Network", "Proxy", "") <> "" Then
        verify_client_options_set_proxy options, VERIFY_PROXY_URL, GetSetting("Example", "Network", "Proxy", "")
    End If
    verify_client_options_set_state_folder options, App.Path & "\verify"
    verify_client_options_set_offline_grace options, 259200
    code = verify_client_new_with_options("https://verify.example.com", "10001", _
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", options, client)
    verify_client_options_free options
    If code <> VERIFY_OK Then
        MsgBox VerifyText(verify_code_user_message(code, vbNullString))
        Debug.Print code; VerifyText(verify_last_error_message())
        Exit Function
    End If
    ' machine code v2: kept across a new disk or a reinstall where it can be
    If verify_machine_check_new("10001", vbNullString, check) = VERIFY_OK Then
        verify_machine_check_code check, p
        machine = VerifyText(p)
        verify_machine_check_outcome check, outcome
        If outcome = VERIFY_MACHINE_REISSUED Then Debug.Print "a new machine code: ask before ChangeBind"
        verify_machine_check_free check
    Else
        Debug.Print VerifyText(verify_last_error_message())
    End If
    VerifyStart = True
End Function

' The result of a login or a ChangeBind: the server's words, the remark (the ban reason of
' 1006, the old machine code of 1022), an offline verdict.
Private Function ShowResult(ByVal code As Long, ByVal reply As Long) As Boolean
    Dim p As Long, confirmedAt As Currency, graceEnd As Currency, reason As Long, remark As String
    If reply = 0 Then
        ' no answer: the user's message in the user's language, the detail logged
        MsgBox VerifyText(verify_code_user_message(code, vbNullString))
        Debug.Print code; VerifyText(verify_last_error_message())
        Exit Function
    End If
    If code = VERIFY_OFFLINE Then
        ' the server is out of reach: the last online login still holds
        verify_reply_offline reply, confirmedAt, graceEnd, reason
        Debug.Print "offline until "; graceEnd * 10000; reason
        ShowResult = True
        Exit Function
    End If
    If code = VERIFY_OK Then
        If verify_reply_str(reply, "/data/expire_at", p) = 0 Then Debug.Print "valid until "; VerifyText(p)
        ShowResult = True
    Else
        If verify_reply_str(reply, "/data/remark", p) = 0 Then remark = VerifyText(p)
        Select Case code
        Case VERIFY_DISABLED
            MsgBox "This card is banned: " & remark
        Case VERIFY_MACHINE_CHANGED
            MsgBox "Bound to another machine (" & remark & "): use ChangeBind first."
        Case Else
            MsgBox VerifyText(verify_reply_message(reply))
        End Select
    End If
End Function

Public Sub CardLogin(ByVal card As String)
    Dim reply As Long, code As Long, keeperOptions As Long
    code = verify_single_login(client, card, machine, vbNullString, reply)
    If ShowResult(code, reply) Then
        ' the keeper beats on its own thread; the Timer reads its status (KeeperTick)
        verify_keeper_options_new keeperOptions
        verify_keeper_options_set_interval keeperOptions, 60000
        verify_keeper_start_from_reply client, reply, keeperOptions, keeper
        verify_keeper_options_free keeperOptions
    End If
    verify_reply_free reply
End Sub

Public Sub AccountLogin(ByVal username As String, ByVal password As String)
    Dim reply As Long, code As Long
    code = verify_user_login(client, username, password, machine, reply)
    ShowResult code, reply
    verify_reply_free reply
End Sub

Public Sub ChangeBind(ByVal username As String, ByVal password As String)
    Dim reply As Long, code As Long
    ' moves the account to this machine's code
    code = verify_change_bind(client, username, password, machine, reply)
    ShowResult code, reply
    verify_reply_free reply
End Sub

' Keeper events come on the keeper's thread, where VB6 cannot run: poll from a Timer instead.
Public Function KeeperTick() As Boolean
    Dim status As Long, state As Long, code As Long, p As Long, remark As String
    If verify_keeper_get_status(keeper, status) <> VERIFY_OK Then Exit Function
    verify_keeper_status_state status, state
    verify_keeper_status_last_code status, code
    If state = VERIFY_KEEPER_ENDED Then
        If verify_keeper_status_remark(status, p) = 0 Then remark = VerifyText(p)
        MsgBox VerifyText(verify_code_user_message(code, vbNullString)) & " " & remark
    Else
        If state = VERIFY_KEEPER_GRACE Then Debug.Print "a heartbeat failed; still in grace"; code
        KeeperTick = True
    End If
    verify_keeper_status_free status
End Function

' The doctor calls back on the thread that called verify_client_diagnose: AddressOf is safe.
Public Sub DiagnosisStep(ByVal userData As Long, ByVal stepKind As Long, ByVal verdict As Long, _
    ByVal key As Long, ByVal sentence As Long)
    Debug.Print stepKind; verdict; VerifyText(sentence)
End Sub

Public Sub Diagnose()
    Dim diagnosis As Long, p As Long
    ' when the server cannot be reached: one sentence that says why
    verify_client_diagnose client, 0, 20000, AddressOf DiagnosisStep, 0, diagnosis
    If verify_diagnosis_first_line(diagnosis, vbNullString, p) = 0 Then MsgBox VerifyText(p)
    verify_diagnosis_free diagnosis
End Sub

Public Sub VerifyStop()
    If keeper <> 0 Then
        verify_keeper_stop keeper
        verify_keeper_free keeper
    End If
    verify_client_free client
End Sub
