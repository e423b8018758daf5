//! Network faults on loopback for the tests, without a network lab.

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use socket2::{Domain, Socket, Type};

/// A port that accepts no connection and answers no SYN, as a firewall that blocks a server
/// does: a listener with a backlog of 0 whose queue one connection fills; Linux then drops
/// every new SYN without a word.
pub struct BlackHole {
    _listener: Socket,
    _filler: TcpStream,
    pub addr: SocketAddr,
}

impl BlackHole {
    /// A black hole at `addr` (port 0: any free port).
    pub fn at(addr: &str) -> BlackHole {
        let addr: SocketAddr = addr.parse().expect("a socket address");
        let domain = if addr.is_ipv6() {
            Domain::IPV6
        } else {
            Domain::IPV4
        };
        let listener = Socket::new(domain, Type::STREAM, None).expect("socket");
        if addr.is_ipv6() {
            listener.set_only_v6(true).expect("v6 only");
        }
        listener.bind(&addr.into()).expect("bind");
        listener.listen(0).expect("listen");
        let addr = listener
            .local_addr()
            .expect("addr")
            .as_socket()
            .expect("inet");
        let filler = TcpStream::connect(addr).expect("the one connection the queue takes");
        // The queue is full once the filler is in it: the next SYN gets no answer.
        let probe = TcpStream::connect_timeout(&addr, Duration::from_millis(300));
        assert!(probe.is_err(), "the black hole answered: {probe:?}");
        BlackHole {
            _listener: listener,
            _filler: filler,
            addr,
        }
    }

    /// `http://` and its address.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// A port that accepts a connection and never says a word, until dropped: a server that never
/// answers its request, a TLS handshake or a proxy's CONNECT that stalls.
pub struct Silent {
    pub port: u16,
    done: Option<std::sync::mpsc::Sender<()>>,
    holder: Option<std::thread::JoinHandle<()>>,
}

impl Silent {
    /// A silent port on 127.0.0.1 (it takes one connection and holds it at most 30 s).
    pub fn start() -> Silent {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let (done, end) = std::sync::mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            let held = listener.accept().map(|(stream, _)| stream);
            let _ = end.recv_timeout(Duration::from_secs(30));
            drop(held);
        });
        Silent {
            port,
            done: Some(done),
            holder: Some(holder),
        }
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        drop(self.done.take());
        if let Some(holder) = self.holder.take() {
            let _ = holder.join();
        }
    }
}
