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
        /// once the doctor finished); <paramref name="cancellationToken"/> stops it within 50 ms.
        /// Returns the report whatever its steps say; blocks the calling thread; any thread.
        /// </summary>
        /// <param name="onStep">Called with each step, or null.</param>
        /// <param name="deadline">The time for every step in all, or null for 10 s.</param>
        /// <param name="cancellationToken">Stops the doctor within 50 ms.</param>
        /// <returns>The report: <see cref="Diagnosis.FirstLine"/> names the cause.</returns>
        /// <exception cref="ArgumentOutOfRangeException">A deadline under 1 ms or over UInt32.MaxValue ms.</exception>
        /// <exception cref="OperationCanceledException">Cancelled, with the library's <see cref="VerifyException"/> (<see cref="ResultCode.Cancelled"/>) inside.</exception>
        /// <exception cref="VerifyException">The library could not run the doctor (not a failed step: those are in the report).</exception>
        /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
        public Diagnosis Diagnose([Nullable(new byte[] { 2, 1 })] Action<DiagnosisStep> onStep = null,
            TimeSpan? deadline = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            // A token cancelled already is seen by the library (Register calls back at once), so
            // the exception carries the library's words as for a cancel in flight.
            if (!cancellationToken.CanBeCanceled)
            {
                // No token: an empty handle, which crosses as NULL.
                return DiagnoseWith(onStep, new CancelHandle(), deadline);
            }
            using (CancelHandle cancel = CancelHandle.Create())
            {
                // Disposed before the handle: Dispose waits for a callback that is running.
                using (cancellationToken.Register(CancelQuietly, cancel))
                {
                    try
                    {
                        return DiagnoseWith(onStep, cancel, deadline);
                    }
                    catch (VerifyException error)
                    {
                        if (error.Code == ResultCode.Cancelled && cancellationToken.IsCancellationRequested)
                        {
                            throw new OperationCanceledException(error.Message, error, cancellationToken);
                        }
                        throw;
                    }
                }
            }
        }

        /// <summary>
        /// <see cref="Diagnose(Action{DiagnosisStep}, TimeSpan?, CancellationToken)"/> on a thread
        /// of its own (<paramref name="onStep"/> runs there): <paramref name="cancellationToken"/>
        /// stops the doctor within 50 ms and the task is cancelled.
        /// </summary>
        /// <param name="onStep">Called with each step, or null.</param>
        /// <param name="deadline">The time for every step in all, or null for 10 s.</param>
        /// <param name="cancellationToken">Stops the doctor within 50 ms.</param>
        /// <exception cref="ArgumentOutOfRangeException">A deadline under 1 ms or over UInt32.MaxValue ms.</exception>
        public Task<Diagnosis> DiagnoseAsync([Nullable(new byte[] { 2, 1 })] Action<DiagnosisStep> onStep = null,
            TimeSpan? deadline = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (deadline.HasValue)
            {
                Args.Milliseconds(deadline.Value, "deadline");
            }
            return Task.Factory.StartNew(() => Diagnose(onStep, deadline, cancellationToken), cancellationToken,
                TaskCreationOptions.LongRunning | TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);
        }

        private Diagnosis DiagnoseWith([Nullable(new byte[] { 2, 1 })] Action<DiagnosisStep> onStep, CancelHandle cancel,
            TimeSpan? deadline)
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
            int code = NativeMethods.verify_client_diagnose(handle, cancel, deadlineMs, callback, IntPtr.Zero, out report);
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
