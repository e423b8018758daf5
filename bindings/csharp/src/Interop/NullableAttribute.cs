// NullableAttribute.cs: the metadata attribute that tells C# 8+ compilers (Roslyn) which
// reference types of a member may be null, declared here because mcs (C# 7) has no `string?`.

namespace System.Runtime.CompilerServices
{
    /// <summary>
    /// The nullability of a member's reference types, as Roslyn writes and reads it: one byte
    /// for the whole type, or one per type in the order of its type arguments (0 oblivious,
    /// 1 not null, 2 may be null). Without it a member has its method's or type's
    /// <see cref="NullableContextAttribute"/>. Internal: Roslyn finds it by name in any
    /// assembly, as it finds those it embeds itself.
    /// </summary>
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Event | AttributeTargets.Field |
        AttributeTargets.GenericParameter | AttributeTargets.Parameter | AttributeTargets.Property |
        AttributeTargets.ReturnValue, AllowMultiple = false, Inherited = false)]
    internal sealed class NullableAttribute : Attribute
    {
        /// <summary>The flags, one per type of the signature (or one for all).</summary>
        public readonly byte[] NullableFlags;

        /// <summary>One flag for every reference type of the member's type.</summary>
        /// <param name="value">0 oblivious, 1 not null, 2 may be null.</param>
        public NullableAttribute(byte value)
        {
            NullableFlags = new[] { value };
        }

        /// <summary>One flag per reference type, outermost first, then the type arguments.</summary>
        /// <param name="value">The flags: 0 oblivious, 1 not null, 2 may be null.</param>
        public NullableAttribute(byte[] value)
        {
            NullableFlags = value;
        }
    }
}
