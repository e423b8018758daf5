/// @file
/// verify/detail/handles.hpp: the std::unique_ptr owners of the C handles, each with its
/// verify_*_free as deleter. Internal to the binding.

#ifndef VERIFY_DETAIL_HANDLES_HPP
#define VERIFY_DETAIL_HANDLES_HPP

#include <memory>
#include "../../verify.h"

namespace verify {

namespace detail {

struct ClientDeleter {
    void operator()(verify_client *client) const noexcept { verify_client_free(client); }
};

struct ReplyDeleter {
    void operator()(verify_reply *reply) const noexcept { verify_reply_free(reply); }
};

using ClientPtr = std::unique_ptr<verify_client, ClientDeleter>;
using ReplyPtr = std::unique_ptr<verify_reply, ReplyDeleter>;

struct KeeperDeleter {
    void operator()(verify_keeper *keeper) const noexcept { verify_keeper_free(keeper); }
};

struct KeeperOptionsDeleter {
    void operator()(verify_keeper_options *options) const noexcept {
        verify_keeper_options_free(options);
    }
};

/// The C type of a status snapshot (from verify_keeper_get_status).
using KeeperStatusHandle = verify_keeper_status;

struct KeeperStatusDeleter {
    void operator()(KeeperStatusHandle *status) const noexcept { verify_keeper_status_free(status); }
};

struct CancelDeleter {
    void operator()(verify_cancel *cancel) const noexcept { verify_cancel_free(cancel); }
};

using KeeperPtr = std::unique_ptr<verify_keeper, KeeperDeleter>;
using KeeperOptionsPtr = std::unique_ptr<verify_keeper_options, KeeperOptionsDeleter>;
using KeeperStatusPtr = std::unique_ptr<KeeperStatusHandle, KeeperStatusDeleter>;
using CancelPtr = std::unique_ptr<verify_cancel, CancelDeleter>;

struct ClientOptionsDeleter {
    void operator()(verify_client_options *options) const noexcept {
        verify_client_options_free(options);
    }
};

using ClientOptionsPtr = std::unique_ptr<verify_client_options, ClientOptionsDeleter>;

}  // namespace detail

}  // namespace verify

#endif /* VERIFY_DETAIL_HANDLES_HPP */
