using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

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
        /// once the doctor finished); <paramref name="cancellationToken"/> stops it within 50 ms
        /// (<see cref="OperationCanceledException"/>). Returns the report whatever its steps say;
        /// blocks the calling thread (<see cref="DiagnoseAsync"/> does not); any thread.
        /// </summary>
        /// <param name="onStep">Called with each step, or null.</param>
        /// <param name="deadline">The time for every step in all, or null for 10 s.</param>
        /// <param name="cancellationToken">Stops the doctor in flight.</param>
        /// <returns>The report: <see cref="Diagnosis.FirstLine"/> names the cause.</returns>
        /// <exception cref="ArgumentOutOfRangeException">A deadline under 1 ms or over UInt32.MaxValue ms.</exception>
        /// <exception cref="OperationCanceledException">Cancelled; the library's <see cref="VerifyException"/> (<see cref="ResultCode.Cancelled"/>) inside.</exception>
        /// <exception cref="VerifyException">The library could not run the doctor (not a failed step: those are in the report).</exception>
        /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
        public Diagnosis Diagnose([Nullable(new byte[] { 2, 1 })] Action<DiagnosisStep> onStep = null,
            TimeSpan? deadline = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            // 0: the library's default deadline.
            uint deadlineMs = deadline.HasValue ? Args.Milliseconds(deadline.Value, "deadline") : 0;
            return Cancellable(() => RunDoctor(onStep, deadlineMs), cancellationToken);
        }

        /// <summary>
        /// <see cref="Diagnose"/> on a thread of its own, so that the calling thread (a UI thread)
        /// stays free; <paramref name="onStep"/> runs on that thread (marshal to the UI
        /// yourself, or use <see cref="IProgress{T}"/>). <paramref name="cancellationToken"/>
        /// stops the doctor within 50 ms and the task ends cancelled.
        /// </summary>
        /// <param name="onStep">Called with each step, or null.</param>
        /// <param name="deadline">The time for every step in all, or null for 10 s.</param>
        /// <param name="cancellationToken">Stops the doctor in flight.</param>
        /// <returns>The report: <see cref="Diagnosis.FirstLine"/> names the cause.</returns>
        /// <exception cref="ArgumentOutOfRangeException">A deadline under 1 ms or over UInt32.MaxValue ms.</exception>
        public Task<Diagnosis> DiagnoseAsync([Nullable(new byte[] { 2, 1 })] Action<DiagnosisStep> onStep = null,
            TimeSpan? deadline = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            uint deadlineMs = deadline.HasValue ? Args.Milliseconds(deadline.Value, "deadline") : 0;
            // Long running: the doctor blocks its thread for up to its deadline.
            return Task.Factory.StartNew(() => Cancellable(() => RunDoctor(onStep, deadlineMs), cancellationToken),
                cancellationToken, TaskCreationOptions.LongRunning | TaskCreationOptions.DenyChildAttach,
                TaskScheduler.Default);
        }

        /// <summary>
        /// verify_client_diagnose on this thread, cancelled by the token attached to it (if any).
        /// </summary>
        private Diagnosis RunDoctor([Nullable(new byte[] { 2, 1 })] Action<DiagnosisStep> onStep, uint deadlineMs)
        {
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
            // No token of its own (an empty handle, which crosses as NULL): the thread's.
            int code = NativeMethods.verify_client_diagnose(handle, new CancelHandle(), deadlineMs, callback,
                IntPtr.Zero, out report);
            GC.KeepAlive(callback);
            if (thrown != null)
            {
                if (report != null)
                {
                    report.Dispose();
                }
                throw thrown;
            }
            return Diagnosis.Take(code, report);
        }
    }
}
