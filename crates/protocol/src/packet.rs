//! Packet framing: MySQL packets over a TCP, Unix socket or TLS stream, with sequence ids,
//! splitting of payloads of 16 MiB and more, `max_allowed_packet`, and buffered writes.
//!
//! Format of one chunk on the wire (MySQL "Protocol::Packet"):
//! `payload_length: u24 LE | sequence_id: u8 | payload`. A payload of `0xFFFFFF` bytes or more is
//! sent as chunks of `0xFFFFFF` bytes followed by a shorter one (possibly empty); the receiver
//! joins them. Chunk boundaries and joining are `mysql_common::proto::codec`'s
//! [`ChunkDecoder`] and [`packet_to_chunks`].
//!
//! Invariants:
//! - one sequence counter serves both directions: it is reset to 0 when a command starts, each
//!   chunk read must carry the expected id ([`Error::OutOfOrder`] otherwise) and each chunk read
//!   or written advances it, as in mysqld's `NET::pkt_nr`;
//! - a packet longer than `max_allowed_packet` is refused as soon as its chunk headers say so,
//!   before its bytes are buffered ([`Error::PacketTooLarge`]);
//! - writes only append to a buffer; the socket is written by [`PacketStream::flush`], once per
//!   response (or when a long result set fills [`FLUSH_THRESHOLD`]);
//! - no socket wait is unbounded: each read waits at most the read timeout in force
//!   (`wait_timeout` between commands, `net_read_timeout` within one, set by the connection
//!   loop), each write at most `net_write_timeout` without progress ([`Error::ReadTimeout`],
//!   [`Error::WriteTimeout`]), as mysqld's `vio_read`/`vio_write` with `SO_RCVTIMEO`/`SO_SNDTIMEO`;
//! - a write blocked on a client that stopped reading ends at once when the connection is
//!   killed ([`Error::Killed`], mysqld's `THD::awake` shutting the socket down): the connection
//!   then ends, its session (and transaction, and locks) with it;
//! - once a write failed or timed out the stream is broken: nothing more is written to it
//!   (closing it does not wait for the client again).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes, BytesMut};
use mysql_common::proto::codec::error::PacketCodecError;
use mysql_common::proto::codec::{packet_to_chunks, ChunkDecoder, ChunkInfo};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::server::TlsStream;

use super::error::{ErrPacket, Error, Result};
use super::processlist::{Process, KILL_CONNECTION};
use super::stats::Stats;

/// Buffered output past this size is written out even in the middle of a response, so a large
/// result set does not sit in memory whole.
pub const FLUSH_THRESHOLD: usize = 64 * 1024;

/// How many bytes are asked of the socket at a time.
const READ_CHUNK: usize = 16 * 1024;

/// Buffers that grew past this for one huge packet are given back once empty, so a
/// connection does not keep 16 MiB for the rest of its life.
const SHRINK_ABOVE: usize = 1024 * 1024;

/// An accepted connection before TLS: TCP, or the Unix socket (`socket`), over which clients
/// on this host connect without the TCP/IP stack — each packet written over loopback TCP also
/// runs the receiving side's TCP processing on the sender's thread (`perf`: ~15% of the
/// server's CPU under sysbench), a Unix socket only copies it into the peer's queue.
pub enum Plain {
    /// A TCP connection.
    Tcp(TcpStream),
    /// A Unix socket connection: local, so treated as a secure transport, as mysqld does.
    Unix(UnixStream),
}

impl From<TcpStream> for Plain {
    fn from(s: TcpStream) -> Self {
        Plain::Tcp(s)
    }
}

impl From<UnixStream> for Plain {
    fn from(s: UnixStream) -> Self {
        Plain::Unix(s)
    }
}

impl AsyncRead for Plain {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Plain::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Plain::Unix(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Plain {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Plain::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Plain::Unix(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Plain::Tcp(s) => Pin::new(s).poll_flush(cx),
            Plain::Unix(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Plain::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Plain::Unix(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// A stream whose first bytes were already read into a buffer: the TLS handshake must see
/// the ClientHello bytes that arrived together with the SSLRequest packet.
pub struct Prefixed {
    prefix: Bytes,
    inner: Plain,
}

impl AsyncRead for Prefixed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if !self.prefix.is_empty() {
            let n = self.prefix.len().min(buf.remaining());
            buf.put_slice(&self.prefix[..n]);
            self.prefix.advance(n);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Prefixed {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The connection's byte stream: plain TCP or Unix socket until the client asks for TLS.
enum Stream {
    Plain(Plain),
    Tls(Box<TlsStream<Prefixed>>),
    /// Transient state while the TLS handshake owns the socket.
    Upgrading,
}

impl Stream {
    async fn read_buf(&mut self, buf: &mut BytesMut) -> io::Result<usize> {
        match self {
            Stream::Plain(Plain::Tcp(s)) => s.read_buf(buf).await,
            Stream::Plain(Plain::Unix(s)) => s.read_buf(buf).await,
            Stream::Tls(s) => s.read_buf(buf).await,
            Stream::Upgrading => Err(io::ErrorKind::NotConnected.into()),
        }
    }

    async fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(Plain::Tcp(s)) => s.write(data).await,
            Stream::Plain(Plain::Unix(s)) => s.write(data).await,
            Stream::Tls(s) => s.write(data).await,
            Stream::Upgrading => Err(io::ErrorKind::NotConnected.into()),
        }
    }

    async fn flush(&mut self) -> io::Result<()> {
        match self {
            // rustls holds encrypted records until flushed.
            Stream::Tls(s) => s.flush().await,
            _ => Ok(()),
        }
    }

    async fn shutdown(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.shutdown().await,
            Stream::Tls(s) => s.shutdown().await,
            Stream::Upgrading => Ok(()),
        }
    }
}

/// A `dup` of a connection's socket ([`PacketStream::clone_socket`]). It shares the socket's
/// non-blocking mode with the connection's own handle: writes never block.
#[derive(Debug)]
pub enum SocketHandle {
    /// A TCP connection's.
    Tcp(std::net::TcpStream),
    /// A Unix socket connection's.
    Unix(std::os::unix::net::UnixStream),
}

impl io::Write for &SocketHandle {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            SocketHandle::Tcp(s) => (&*s).write(buf),
            SocketHandle::Unix(s) => (&*s).write(buf),
        }
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        match self {
            SocketHandle::Tcp(s) => (&*s).write_vectored(bufs),
            SocketHandle::Unix(s) => (&*s).write_vectored(bufs),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One connection's packet layer.
pub struct PacketStream {
    stream: Stream,
    read_buf: BytesMut,
    payload: BytesMut,
    write_buf: BytesMut,
    /// Scratch space for one packet being built (`mysql_common` serializes into a `Vec`).
    scratch: Vec<u8>,
    decoder: ChunkDecoder,
    seq: u8,
    max_allowed_packet: usize,
    stats: Arc<Stats>,
    /// Longest wait for the client's next bytes (`None`: unbounded).
    read_timeout: Option<std::time::Duration>,
    /// Longest wait for the socket to take more bytes (`None`: unbounded).
    write_timeout: Option<std::time::Duration>,
    /// The connection's registry entry: a KILL CONNECTION ends a blocked write.
    process: Option<Arc<Process>>,
    /// A write failed: the client cannot be written to any more.
    broken: bool,
}

impl PacketStream {
    /// Wraps an accepted socket.
    pub fn new(socket: impl Into<Plain>, max_allowed_packet: usize, stats: Arc<Stats>) -> Self {
        Self {
            stream: Stream::Plain(socket.into()),
            read_buf: BytesMut::with_capacity(READ_CHUNK),
            payload: BytesMut::new(),
            write_buf: BytesMut::with_capacity(4096),
            scratch: Vec::with_capacity(256),
            decoder: ChunkDecoder::default(),
            seq: 0,
            max_allowed_packet,
            stats,
            read_timeout: None,
            write_timeout: None,
            process: None,
            broken: false,
        }
    }

    /// The largest packet accepted from now on (the pre-authentication limit, then
    /// `max_allowed_packet`).
    pub fn set_max_packet(&mut self, max: usize) {
        self.max_allowed_packet = max;
    }

    /// The longest wait for the client's next bytes, from now on.
    pub fn set_read_timeout(&mut self, timeout: Option<std::time::Duration>) {
        self.read_timeout = timeout;
    }

    /// The longest wait for the socket to take more bytes, from now on.
    pub fn set_write_timeout(&mut self, timeout: Option<std::time::Duration>) {
        self.write_timeout = timeout;
    }

    /// Watches the connection's kill flag: a KILL CONNECTION ends a blocked write.
    pub fn watch_kill(&mut self, process: Arc<Process>) {
        self.process = Some(process);
    }

    /// True once the stream runs over TLS.
    pub fn is_tls(&self) -> bool {
        matches!(self.stream, Stream::Tls(_))
    }

    /// The negotiated TLS session (`None` on a plain connection).
    pub fn tls_session(&self) -> Option<crate::tls_status::TlsSession> {
        match &self.stream {
            Stream::Tls(s) => Some(crate::tls_status::TlsSession::of(s.get_ref().1)),
            _ => None,
        }
    }

    /// True when the connection is secure as mysqld counts it (`is_secure_transport`): TLS, or
    /// a Unix socket, which never leaves the host.
    pub fn is_secure(&self) -> bool {
        match &self.stream {
            Stream::Tls(_) => true,
            Stream::Plain(Plain::Unix(_)) => true,
            Stream::Plain(Plain::Tcp(_)) | Stream::Upgrading => false,
        }
    }

    /// Starts a new command: the next packet read must have sequence id 0.
    pub fn reset_seq(&mut self) {
        self.seq = 0;
    }

    /// The sequence id the next packet will carry.
    pub fn seq(&self) -> u8 {
        self.seq
    }

    /// Sets the sequence id of the next packet (an ERR answering a packet that broke the
    /// sequence).
    pub fn set_seq(&mut self, seq: u8) {
        self.seq = seq;
    }

    /// Reads one whole packet (chunks joined) and returns its payload.
    pub async fn read_packet(&mut self) -> Result<Bytes> {
        loop {
            match self.decoder.decode(
                &mut self.read_buf,
                &mut self.payload,
                self.max_allowed_packet,
            ) {
                Ok(Some(chunk)) => {
                    let got = match chunk {
                        ChunkInfo::Middle(seq) | ChunkInfo::Last(seq) => seq,
                    };
                    if got != self.seq {
                        return Err(Error::OutOfOrder { expected: self.seq, got });
                    }
                    self.seq = self.seq.wrapping_add(1);
                    if let ChunkInfo::Last(_) = chunk {
                        if self.read_buf.is_empty() && self.read_buf.capacity() > SHRINK_ABOVE {
                            self.read_buf = BytesMut::with_capacity(READ_CHUNK);
                        }
                        return Ok(self.payload.split().freeze());
                    }
                    continue;
                }
                Ok(None) => {}
                Err(PacketCodecError::PacketTooLarge) => {
                    return Err(Error::PacketTooLarge {
                        max_allowed_packet: self.max_allowed_packet,
                    })
                }
                Err(PacketCodecError::Io(e)) => return Err(Error::Io(e)),
                Err(PacketCodecError::PacketsOutOfSync)
                | Err(PacketCodecError::BadCompressedPacketHeader) => {
                    return Err(Error::Malformed { what: "chunk" })
                }
            }
            self.read_buf.reserve(READ_CHUNK);
            let read = self.stream.read_buf(&mut self.read_buf);
            let n = match self.read_timeout {
                Some(limit) => {
                    tokio::time::timeout(limit, read).await.map_err(|_| Error::ReadTimeout)??
                }
                None => read.await?,
            };
            if n == 0 {
                let idle = self.read_buf.is_empty()
                    && self.payload.is_empty()
                    && self.decoder == ChunkDecoder::Idle;
                return Err(if idle { Error::Closed } else { Error::Truncated });
            }
            self.stats.add_bytes_received(n as u64);
        }
    }

    /// Appends one packet built by `build` to the output buffer, split into chunks as needed.
    pub fn write_with(&mut self, build: impl FnOnce(&mut Vec<u8>)) {
        self.scratch.clear();
        build(&mut self.scratch);
        let mut payload = &self.scratch[..];
        self.seq = packet_to_chunks(self.seq, &mut payload, &mut self.write_buf);
    }

    /// Appends one packet with the given payload to the output buffer.
    pub fn write_packet(&mut self, payload: &[u8]) {
        let mut payload = payload;
        self.seq = packet_to_chunks(self.seq, &mut payload, &mut self.write_buf);
    }

    /// Appends an ERR packet.
    pub fn write_err(&mut self, error: &ErrPacket) {
        // Format: 0xFF | error_code u16 | '#' | sqlstate[5] | message (rest of packet)
        self.write_with(|buf| {
            buf.push(0xFF);
            buf.extend_from_slice(&error.code.to_le_bytes());
            buf.push(b'#');
            buf.extend_from_slice(&error.sqlstate);
            buf.extend_from_slice(error.message.as_bytes());
        });
    }

    /// A second handle on the plain TCP or Unix socket (`None` over TLS), for a replication
    /// sender that writes a caught-up dump's packets from its own thread while the task waits
    /// (`replication::tail`). The handle keeps the socket open: drop it before the connection.
    pub fn clone_socket(&self) -> Option<io::Result<SocketHandle>> {
        use std::os::fd::AsFd;
        match &self.stream {
            Stream::Plain(Plain::Tcp(s)) => Some(
                s.as_fd()
                    .try_clone_to_owned()
                    .map(|fd| SocketHandle::Tcp(std::net::TcpStream::from(fd))),
            ),
            Stream::Plain(Plain::Unix(s)) => Some(
                s.as_fd()
                    .try_clone_to_owned()
                    .map(|fd| SocketHandle::Unix(std::os::unix::net::UnixStream::from(fd))),
            ),
            _ => None,
        }
    }

    /// Takes back the stream from such a sender: `framed` (whole packets it framed with the
    /// sequence ids up to `seq` and could not write) is buffered, and the `written` bytes it
    /// sent are counted.
    pub fn resume_framed(&mut self, framed: &[u8], seq: u8, written: u64) {
        self.write_buf.extend_from_slice(framed);
        self.seq = seq;
        self.stats.add_bytes_sent(written);
    }

    /// Bytes buffered and not yet written.
    pub fn buffered(&self) -> usize {
        self.write_buf.len()
    }

    /// Writes out everything buffered.
    pub async fn flush(&mut self) -> Result<()> {
        if self.write_buf.is_empty() {
            return Ok(());
        }
        if self.broken {
            return Err(Error::Closed);
        }
        let written = self.write_out().await;
        if written.is_err() {
            self.broken = true;
        }
        written?;
        self.stats.add_bytes_sent(self.write_buf.len() as u64);
        self.write_buf.clear();
        if self.write_buf.capacity() > SHRINK_ABOVE {
            self.write_buf = BytesMut::with_capacity(4096);
        }
        if self.scratch.capacity() > SHRINK_ABOVE {
            self.scratch = Vec::new();
        }
        Ok(())
    }

    /// Writes the whole buffer: each write may wait `write_timeout` for the socket to take
    /// bytes, and stops at once if the connection is killed.
    async fn write_out(&mut self) -> Result<()> {
        let mut done = 0;
        while done < self.write_buf.len() {
            let n = self.wait_write(done).await?;
            if n == 0 {
                return Err(Error::Io(io::ErrorKind::WriteZero.into()));
            }
            done += n;
        }
        let process = self.process.clone();
        bounded_write(process, self.write_timeout, self.stream.flush()).await
    }

    /// One write of `write_buf[from..]`, bounded by the write timeout and the kill flag.
    async fn wait_write(&mut self, from: usize) -> Result<usize> {
        let process = self.process.clone();
        bounded_write(process, self.write_timeout, self.stream.write(&self.write_buf[from..])).await
    }

    /// Flushes only when the buffer has grown past [`FLUSH_THRESHOLD`].
    pub async fn flush_if_full(&mut self) -> Result<()> {
        if self.write_buf.len() >= FLUSH_THRESHOLD {
            self.flush().await?;
        }
        Ok(())
    }

    /// Switches to TLS after the client's SSLRequest; bytes already read (the start of the
    /// ClientHello) are replayed to the TLS acceptor.
    pub async fn upgrade_to_tls(&mut self, acceptor: &tokio_rustls::TlsAcceptor) -> Result<()> {
        let socket = match std::mem::replace(&mut self.stream, Stream::Upgrading) {
            Stream::Plain(socket) => socket,
            other => {
                self.stream = other;
                return Err(Error::Malformed { what: "second SSLRequest" });
            }
        };
        let prefixed = Prefixed { prefix: self.read_buf.split().freeze(), inner: socket };
        let tls = acceptor
            .accept(prefixed)
            .await
            .map_err(|e| Error::tls("TLS handshake with client", e))?;
        self.stream = Stream::Tls(Box::new(tls));
        Ok(())
    }

    /// Flushes and closes the write side; errors are of no interest at that point. A broken
    /// stream (a write failed, timed out or was killed) is left to be dropped: closing it must
    /// not wait for the client again.
    pub async fn close(&mut self) {
        if self.broken {
            return;
        }
        let _ = self.flush().await;
        if self.broken {
            return;
        }
        let limit = self.write_timeout.unwrap_or(std::time::Duration::from_secs(10));
        let _ = tokio::time::timeout(limit, self.stream.shutdown()).await;
    }
}

/// What a replication handler (COM_BINLOG_DUMP, ...) is lent: the connection's packet stream,
/// for as long as it wants to stream events.
///
/// Each [`PacketWriter::write_packet`] continues the command's sequence ids; call
/// [`PacketWriter::flush`] whenever the client should see what was written (e.g. after each
/// event group, or before waiting for new events).
pub struct PacketWriter<'a> {
    stream: &'a mut PacketStream,
}

impl<'a> PacketWriter<'a> {
    pub(crate) fn new(stream: &'a mut PacketStream) -> Self {
        Self { stream }
    }

    /// Buffers one packet (split if 16 MiB or more).
    pub fn write_packet(&mut self, payload: &[u8]) {
        self.stream.write_packet(payload);
    }

    /// Buffers one packet built in place.
    pub fn write_with(&mut self, build: impl FnOnce(&mut Vec<u8>)) {
        self.stream.write_with(build);
    }

    /// Buffers an ERR packet (ends a binlog dump, for instance).
    pub fn write_err(&mut self, error: &ErrPacket) {
        self.stream.write_err(error);
    }

    /// Writes out everything buffered.
    pub async fn flush(&mut self) -> Result<()> {
        self.stream.flush().await
    }

    /// Flushes when the buffer has grown past [`FLUSH_THRESHOLD`].
    pub async fn flush_if_full(&mut self) -> Result<()> {
        self.stream.flush_if_full().await
    }

    /// Reads the client's next packet (semi-sync replicas send acknowledgements).
    /// Sequence ids are the client's: call [`PacketWriter::reset_seq`] first if it restarts at 0.
    pub async fn read_packet(&mut self) -> Result<Bytes> {
        self.stream.read_packet().await
    }

    /// Restarts sequence ids at 0.
    pub fn reset_seq(&mut self) {
        self.stream.reset_seq();
    }

    /// The sequence id the next packet will carry.
    pub fn seq(&self) -> u8 {
        self.stream.seq()
    }

    /// See [`PacketStream::clone_socket`].
    pub fn clone_socket(&self) -> Option<io::Result<SocketHandle>> {
        self.stream.clone_socket()
    }

    /// See [`PacketStream::resume_framed`].
    pub fn resume_framed(&mut self, framed: &[u8], seq: u8, written: u64) {
        self.stream.resume_framed(framed, seq, written);
    }
}

/// One socket write or flush, bounded by `limit` (`net_write_timeout`: [`Error::WriteTimeout`])
/// and by the connection's kill flag ([`Error::Killed`]). Biased: an operation the socket
/// completes at once wins over the kill flag, so the answer of the statement that killed its
/// own connection (1317) still goes out; only a write blocked on the client is ended by KILL.
async fn bounded_write<T>(
    process: Option<Arc<Process>>,
    limit: Option<std::time::Duration>,
    op: impl std::future::Future<Output = io::Result<T>>,
) -> Result<T> {
    let killed = async {
        match &process {
            Some(p) => p.wait_killed(KILL_CONNECTION).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        biased;
        r = async {
            match limit {
                Some(limit) => tokio::time::timeout(limit, op).await.map_err(|_| Error::WriteTimeout)?,
                None => op.await,
            }
            .map_err(Error::Io)
        } => r,
        () = killed => Err(Error::Killed),
    }
}
