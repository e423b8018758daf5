using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    public sealed partial class Client
    {
        /// <summary>
        /// The doctor with the settings this client was made with (verify_client_diagnose): its
        /// URL and mirrors, AppId, AppKey, trust and pins, proxy, state folder and offline grace,
        /// and its timeouts as they are now. The program runs it itself, so support never needs
        /// its AppKey. <paramref name="onStep"/> (optional) gets each step as the steps finish,
        /// on the calling thread, for a progress display (an exception it throws is thrown again
        /// once the doctor finished); <paramref name="cancel"/> (optional) stops it within 50 ms.
        /// Returns the report whatever its steps say; blocks the calling thread; any thread.
        /// </summary>
        /// <param name="onStep">Called with each step, or null.</param>
        /// <param name="cancel">A token that stops the doctor, or null.</param>
        /// <param name="deadline">The time for every step in all, or null for 10 s.</param>
        /// <returns>The report: <see cref="Diagnosis.FirstLine"/> names the cause.</returns>
        /// <exception cref="ArgumentOutOfRangeException">A deadline under 1 ms or over UInt32.MaxValue ms.</exception>
        /// <exception cref="VerifyException">Cancelled (<see cref="ResultCode.Cancelled"/>).</exception>
        /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
        public Diagnosis Diagnose([Nullable(new byte[] { 2, 1 })] Action<DiagnosisStep> onStep = null,
            [Nullable(2)] CancelToken cancel = null, TimeSpan? deadline = null)
        {
            // 0: the library's default deadline.
            uint deadlineMs = deadline.HasValue ? Args.Milliseconds(deadline.Value, "deadline") : 0;
            Exception thrown = null;
            NativeMethods.DiagnosisCallback callback = null;
            if (onStep != null)
            {
                callback = (userData, step, verdict, key, sentence) =>
                {
                    if (thrown != null)
                    {
                        return;
                    }
                    try
                    {
                        onStep(new DiagnosisStep((DiagnosisStepKind)step, (Verdict)verdict,
                            Utf8.FromNative(key), "", Utf8.FromNative(sentence)));
                    }
                    catch (Exception e)
                    {
                        thrown = e;
                    }
                };
            }
            DiagnosisHandle report;
            // No token: an empty handle, which crosses as NULL.
            int code = NativeMethods.verify_client_diagnose(handle,
                cancel == null ? new CancelHandle() : cancel.Handle, deadlineMs, callback, IntPtr.Zero, out report);
            GC.KeepAlive(callback);
            if (thrown != null)
            {
                report.Dispose();
                throw thrown;
            }
            return Diagnosis.Take(code, report);
        }
    }
}
