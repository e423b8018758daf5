using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>
    /// Owns a <c>verify_diagnosis *</c> (the doctor's report, from verify_diagnose); released with
    /// verify_diagnosis_free. A <see cref="Diagnosis"/> keeps it for
    /// <see cref="Diagnosis.TextIn(string)"/>: the garbage collector frees it with the report.
    /// </summary>
    [NullableContext(1)]
    internal sealed class DiagnosisHandle : SafeHandle
    {
        /// <summary>An empty handle; the marshaller fills it from verify_diagnose's <c>out</c>.</summary>
        public DiagnosisHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL (verify_diagnose failed and made no report).</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>Calls <paramref name="read"/> with the native pointer while a reference is held.</summary>
        internal T With<T>(Func<IntPtr, T> read)
        {
            return Hold.With(this, read);
        }

        /// <summary>Frees the report and every string borrowed from it.</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_diagnosis_free(handle);
            return true;
        }
    }
}
