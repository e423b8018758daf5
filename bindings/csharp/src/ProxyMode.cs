using System;

namespace Verify
{
    /// <summary>How a client reaches the server (VERIFY_PROXY_*), for <see cref="ClientOptions.Proxy"/>.</summary>
    public enum ProxyMode
    {
        /// <summary>The system's proxy settings (the default).</summary>
        System = 0,

        /// <summary>No proxy.</summary>
        None = 1,

        /// <summary>The proxy given by URL (http://, https:// CONNECT, socks5://, socks5h://, with optional user:password@).</summary>
        Url = 2,
    }
}
