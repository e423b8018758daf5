"""The doctor's report from a program's own client (:meth:`verify.Client.diagnose`, over
``verify_client_diagnose``): every step a login depends on, with a verdict, and the first line
that names the cause, what to do and who acts (docs/doctor.md)."""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

from . import _native
from ._cancel import Cancel
from ._duration import Duration, millis
from ._enums import DiagnosisActor, DiagnosisStepKind, Verdict
from ._failures import check, local_error
from ._generated.codes import Code
from ._state_folder import PathLike


@dataclass(frozen=True)
class DiagnosisStep:
    """One step of a :class:`Diagnosis`."""

    kind: DiagnosisStepKind
    """What it checked."""
    verdict: Verdict
    """How it went."""
    key: str
    """Its stable key (``"tls.pin_mismatch"``, ``"init.1011"`` ...), for messages of your own."""
    message: str
    """Its English sentence, for developers ("" for a step handed to ``on_step``)."""
    text: str
    """Its sentence in the process's language (:func:`verify.set_language`)."""


@dataclass(frozen=True)
class DiagnosisCause:
    """A cause the doctor found: a step that warned or failed and follows from no other."""

    step: int
    """The index of its step in :attr:`Diagnosis.steps`."""
    actor: DiagnosisActor
    """Who acts on it: the end user (this computer, its network) or the software's vendor."""
    key: str
    """Its step's key."""
    sentence: str
    """What is wrong and what to do, in the process's language."""


#: What :meth:`verify.Client.diagnose` calls with each step as it finishes.
StepCallback = Callable[[DiagnosisStep], None]


class Diagnosis:
    """The doctor's report. It holds no AppKey, api password, card, password or token; read it
    from any thread. :attr:`first_line` is what to show first."""

    verdict: Verdict
    """The worst of its steps (``PASS`` when every step passed or was skipped)."""
    steps: Tuple[DiagnosisStep, ...]
    """Every step, in the report's order."""
    causes: Tuple[DiagnosisCause, ...]
    """The causes, failures first (empty when the connection is fine)."""
    first_line: str
    """The first cause, what to do and who acts, in the process's language; for a report
    without a cause, that the connection is fine (a login that still fails is about the card or
    the account)."""
    text: str
    """The report as a short text to paste into a chat, in the process's language."""
    json: str
    """The report as JSON (schema version 2, docs/doctor.md)."""

    def __init__(self, handle: int) -> None:
        self._handle: Optional[int] = handle
        lib = _native.lib
        verdict = ctypes.c_int32()
        check(lib.verify_diagnosis_verdict(handle, ctypes.byref(verdict)))
        self.verdict = Verdict(verdict.value)
        self.json = _borrowed(lib.verify_diagnosis_json, handle)
        self.text = _borrowed(lib.verify_diagnosis_text, handle)
        self.first_line = self.first_line_in(None)
        count = ctypes.c_size_t()
        check(lib.verify_diagnosis_count(handle, ctypes.byref(count)))
        steps: List[DiagnosisStep] = []
        for index in range(count.value):
            kind, verdict, key, message = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_char_p(), ctypes.c_char_p()
            check(
                lib.verify_diagnosis_step(
                    handle, index, ctypes.byref(kind), ctypes.byref(verdict), ctypes.byref(key), ctypes.byref(message)
                )
            )
            text = _borrowed(lib.verify_diagnosis_step_text, handle, index, None)
            steps.append(
                DiagnosisStep(
                    DiagnosisStepKind(kind.value),
                    Verdict(verdict.value),
                    _native.text(key.value or b""),
                    _native.text(message.value or b""),
                    text,
                )
            )
        self.steps = tuple(steps)
        causes: List[DiagnosisCause] = []
        while True:
            step, actor, key, sentence = ctypes.c_size_t(), ctypes.c_int32(), ctypes.c_char_p(), ctypes.c_char_p()
            code = lib.verify_diagnosis_cause(
                handle,
                len(causes),
                None,
                ctypes.byref(step),
                ctypes.byref(actor),
                ctypes.byref(key),
                ctypes.byref(sentence),
            )
            if code == Code.NO_SUCH_FIELD:
                break
            check(code)
            causes.append(
                DiagnosisCause(
                    step.value,
                    DiagnosisActor(actor.value),
                    _native.text(key.value or b""),
                    _native.text(sentence.value or b""),
                )
            )
        self.causes = tuple(causes)

    @property
    def failed(self) -> bool:
        """Whether a step failed (a login cannot work until its cause is mended)."""
        return self.verdict == Verdict.FAIL

    def first_line_in(self, language: Optional[str]) -> str:
        """:attr:`first_line` in ``language`` (``"zh-CN"``, ``"zh-TW"``, ``"en"``, any BCP 47
        tag; None for the process's)."""
        return _borrowed(_native.lib.verify_diagnosis_first_line, self._report(), _language(language))

    def text_in(self, language: Optional[str]) -> str:
        """:attr:`text` in ``language`` (as :meth:`first_line_in` takes it)."""
        return _borrowed(_native.lib.verify_diagnosis_text_in, self._report(), _language(language))

    def support_file(self, language: Optional[str] = None) -> str:
        """The support file's text: a line asking to send it to the software's vendor, the text
        in ``language`` (and in English when that is another), and the JSON; redacted as the
        report is."""
        return _borrowed(_native.lib.verify_diagnosis_support_file, self._report(), _language(language))

    def save(self, path: PathLike, language: Optional[str] = None) -> None:
        """Writes :meth:`support_file` at ``path`` (whole, then renamed over it; readable by
        its owner only on Unix). A file that cannot be written raises a
        :class:`verify.VerifyError` (``Code.SYSTEM``)."""
        check(
            _native.lib.verify_diagnosis_save(
                self._report(), _language(language), _native.arg(os.fspath(path), "path")
            )
        )

    def __repr__(self) -> str:
        return f"Diagnosis({self.verdict}, {len(self.steps)} steps, {len(self.causes)} causes)"

    def __del__(self) -> None:
        try:
            handle, self._handle = self._handle, None
            if handle is not None:
                _native.lib.verify_diagnosis_free(handle)
        except Exception:  # interpreter shutdown
            pass

    def _report(self) -> int:
        if self._handle is None:
            raise ValueError("the report is freed")
        return self._handle


def diagnose(
    client: int,
    on_step: Optional[StepCallback],
    cancel: Optional[Cancel],
    deadline: Optional[Duration],
) -> Diagnosis:
    """``verify_client_diagnose`` on the client handle ``client``: the report, or
    :class:`verify.Cancelled`; an exception ``on_step`` raises is raised once the doctor ends."""
    raised: List[BaseException] = []

    def on_native_step(_user_data: Optional[int], kind: int, verdict: int, key: Optional[bytes], sentence: Optional[bytes]) -> None:
        if raised or on_step is None:
            return
        try:
            text = _native.text(sentence or b"")
            on_step(DiagnosisStep(DiagnosisStepKind(kind), Verdict(verdict), _native.text(key or b""), "", text))
        except BaseException as error:  # kept and raised after: nothing unwinds through C
            raised.append(error)

    callback: Any = _native.DIAGNOSIS_CALLBACK(on_native_step) if on_step is not None else _native.DIAGNOSIS_CALLBACK()
    out = ctypes.c_void_p()
    code = int(
        _native.lib.verify_client_diagnose(
            client,
            None if cancel is None else cancel.handle,
            0 if deadline is None else millis(deadline, "deadline"),
            callback,
            None,
            ctypes.byref(out),
        )
    )
    report = Diagnosis(out.value) if code == 200 and out.value else None
    if raised:
        raise raised[0]
    if report is None:
        if out.value:
            _native.lib.verify_diagnosis_free(out.value)
        raise local_error(code)
    return report


def _borrowed(function: Any, *args: Any) -> str:
    """A string the report lends (``function(*args, &out)``)."""
    out = ctypes.c_char_p()
    check(function(*args, ctypes.byref(out)))
    return _native.text(out.value or b"")


def _language(language: Optional[str]) -> Optional[bytes]:
    return None if language is None else _native.arg(language, "language")


__all__ = ["Diagnosis", "DiagnosisCause", "DiagnosisStep", "StepCallback"]
