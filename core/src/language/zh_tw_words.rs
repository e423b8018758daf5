//! The zh-TW texts use Taiwan's words, not the mainland's written in traditional characters.
//!
//! Each row: a mainland word (often the trade's word of 网络验证 on the mainland) and what a
//! program in Taiwan says instead. The test reads every zh-TW text the core has: the result
//! codes' end-user messages ([`crate::codes`]) and the doctor's sentences
//! ([`crate::diagnose::table`]).

use crate::codes;
use crate::diagnose::table;
use crate::language::Language;

/// Words that must not appear in a zh-TW text, each with the word to use.
pub(super) const MAINLAND_WORDS: &[(&str, &str)] = &[
    ("卡密", "序號（或授權碼）"),
    ("換綁", "重新綁定"),
    ("换绑", "重新綁定"),
    ("校驗", "驗證"),
    ("續費", "續約"),
    ("提交", "送出"),
    ("出錯", "發生錯誤"),
    ("軟件", "軟體"),
    ("服務器", "伺服器"),
    ("網絡", "網路"),
    ("信息", "資訊、資料"),
    ("默認", "預設"),
    ("登錄", "登入"),
    ("賬號", "帳號"),
    ("用戶名", "使用者名稱"),
    ("程序", "程式"),
    ("數據", "資料"),
    ("激活", "啟用"),
    ("鏈接", "連結"),
    ("設置", "設定"),
    ("運行", "執行"),
    ("支持", "支援"),
    ("文件夾", "資料夾"),
    ("超時", "逾時"),
];

/// Every zh-TW text of the core's tables.
fn zh_tw_texts() -> Vec<&'static str> {
    let mut texts: Vec<&'static str> = codes::TABLE.iter().map(|row| row.user.zh_tw).collect();
    texts.push(codes::UNDOCUMENTED_SERVER_CODE_USER.zh_tw);
    texts.push(codes::UNKNOWN_LOCAL_CODE_USER.zh_tw);
    texts.extend(table::texts(Language::ZhTw));
    texts
}

#[test]
fn zh_tw_texts_use_taiwan_words() {
    let texts = zh_tw_texts();
    assert!(
        texts.len() > codes::TABLE.len(),
        "the doctor's texts are read too"
    );
    let mut found = Vec::new();
    for text in &texts {
        for (word, instead) in MAINLAND_WORDS {
            if text.contains(word) {
                found.push(format!("{text:?} has {word} (say {instead})"));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_mainland_word() {
    // The check above is only as good as its matching: a text with a listed word is caught.
    let caught = |text: &str| MAINLAND_WORDS.iter().any(|(word, _)| text.contains(word));
    assert!(caught("卡密無效，請檢查後重新輸入。"));
    assert!(caught("請續費後再試。"));
    assert!(!caught("序號無效，請檢查後重新輸入。"));
}
