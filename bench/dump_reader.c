/* A lightweight binlog dump client for bench/dump-readers.sh, in C so that the readers cost
 * the machine as little CPU as a client can: one recv() per wake-up into a 1 MiB buffer and a
 * cheap running hash of the bytes, no event parsing.
 *
 * Why not a stock client: `mariadb-binlog --read-from-remote-server --raw --stop-never` (the
 * Debian mariadb-client one) refuses the server after `SELECT VERSION()`: "Master reported
 * unrecognized MariaDB version '8.0.40-binlogd'" (MariaDB's mysqlbinlog accepts only 5.x and
 * 10.x+ version strings); and the earlier Python reader (bench/dump_reader.py) spent 4-7 s of
 * CPU per 10 s point with 32 readers on the 2 cores the server uses.
 *
 * Protocol (MySQL's client/server protocol, as documented for HandshakeV10,
 * HandshakeResponse41, COM_QUERY and COM_BINLOG_DUMP): connect as root with an empty password
 * (the benchmark's server runs --initialize-insecure), offering mysql_native_password; answer
 * an AuthSwitchRequest with an empty response (an empty password's scramble is empty for both
 * mysql_native_password and caching_sha2_password); `SET @master_binlog_checksum =
 * @@global.binlog_checksum`; then COM_BINLOG_DUMP (file, position, flags, server id).
 *
 * Replication delay (blocking readers given DELAYS_FILE): the reader also walks the packet
 * headers (no copy: it skips each payload after its first bytes) and, for every GTID event,
 * takes the time it received it (CLOCK_REALTIME, once per recv()) minus the event's
 * `immediate_commit_timestamp` (µs since the epoch, taken by the server when the group's
 * flush stage encodes it, before the binlog write and fdatasync): how late the reader saw the
 * commit, write and sync included. At exit the delays (µs) are written to DELAYS_FILE, one a
 * line. GTID event body (MySQL 8.0, `Gtid_event`): flags u8 | sid[16] | gno u64 | lt_type u8 |
 * last_committed u64 | sequence_number u64 | immediate_commit_timestamp 7 bytes (bit 55: an
 * original timestamp follows): at payload offset 1 (the OK byte) + 19 (the header) + 42.
 *
 * Usage: dump_reader PORT SERVER_ID FILE POS NONBLOCK [READY_FILE [DELAYS_FILE]]
 *   NONBLOCK=0: a blocking dump; receives until SIGTERM or until the server closes, then
 *               prints "BYTES HASH".
 *   NONBLOCK=1: BINLOG_DUMP_NON_BLOCK, the reference: receives everything up to the server's
 *               EOF and prints "BYTES HASH" of the stream without its last packet (the EOF a
 *               blocking dump never gets), so a blocking reader that received every byte
 *               prints the same line.
 *   DUMP_SOCKET=PATH in the environment: connect to the server's Unix socket at PATH instead
 *   of 127.0.0.1:PORT (bench/dump-readers.sh READER_SOCKET=1: a reader whose receiving side
 *   costs the sender no loopback TCP processing).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig) {
    (void)sig;
    stop = 1;
}

static void die(const char *what) {
    fprintf(stderr, "dump_reader: %s\n", what);
    exit(1);
}

static void read_exact(int fd, uint8_t *buf, size_t n) {
    while (n > 0) {
        ssize_t r = recv(fd, buf, n, 0);
        if (r <= 0) {
            if (r < 0 && errno == EINTR) continue;
            die("connection closed during setup");
        }
        buf += r;
        n -= (size_t)r;
    }
}

/* Reads one packet (setup only: no packet reaches 16 MiB there); returns its length. */
static size_t read_packet(int fd, uint8_t *payload, size_t cap, uint8_t *seq) {
    uint8_t h[4];
    read_exact(fd, h, 4);
    size_t len = h[0] | (h[1] << 8) | ((size_t)h[2] << 16);
    if (len > cap) die("setup packet too long");
    *seq = h[3];
    read_exact(fd, payload, len);
    return len;
}

static void write_packet(int fd, const uint8_t *payload, size_t len, uint8_t seq) {
    uint8_t buf[1024];
    if (len + 4 > sizeof buf) die("packet too long");
    buf[0] = len & 0xff;
    buf[1] = (len >> 8) & 0xff;
    buf[2] = (len >> 16) & 0xff;
    buf[3] = seq;
    memcpy(buf + 4, payload, len);
    if (send(fd, buf, len + 4, 0) != (ssize_t)(len + 4)) die("send failed");
}

static void expect_ok(const uint8_t *p, size_t n, const char *what) {
    if (n == 0 || p[0] != 0x00) {
        fprintf(stderr, "dump_reader: %s: ", what);
        if (n > 9 && p[0] == 0xff) fprintf(stderr, "%.*s", (int)(n - 9), (const char *)p + 9);
        fprintf(stderr, "\n");
        exit(1);
    }
}

/* A running hash of the stream, four 64-bit lanes over 32-byte blocks (independent
 * multiplications, so it costs well under a cycle per byte); not cryptographic, it only has to
 * tell a reader whose bytes differ from the reference's. */
struct hash {
    uint64_t lane[4];
    uint8_t carry[32];
    size_t carried;
    uint64_t total;
};

#define P1 0x9E3779B185EBCA87ULL

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static void hash_init(struct hash *h) {
    h->lane[0] = 0x243F6A8885A308D3ULL;
    h->lane[1] = 0x13198A2E03707344ULL;
    h->lane[2] = 0xA4093822299F31D0ULL;
    h->lane[3] = 0x082EFA98EC4E6C89ULL;
    h->carried = 0;
    h->total = 0;
}

static void hash_block(struct hash *h, const uint8_t *b) {
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        memcpy(&w, b + 8 * i, 8);
        h->lane[i] = rotl((h->lane[i] ^ w) * P1, 31);
    }
}

static void hash_update(struct hash *h, const uint8_t *p, size_t n) {
    h->total += n;
    if (h->carried > 0) {
        size_t take = 32 - h->carried < n ? 32 - h->carried : n;
        memcpy(h->carry + h->carried, p, take);
        h->carried += take;
        p += take;
        n -= take;
        if (h->carried < 32) return;
        hash_block(h, h->carry);
        h->carried = 0;
    }
    while (n >= 32) {
        hash_block(h, p);
        p += 32;
        n -= 32;
    }
    memcpy(h->carry, p, n);
    h->carried = n;
}

static uint64_t hash_final(struct hash *h) {
    uint64_t x = h->total * P1;
    for (size_t i = 0; i < h->carried; i++) x = rotl((x ^ h->carry[i]) * P1, 17);
    for (int i = 0; i < 4; i++) x = rotl((x ^ h->lane[i]) * P1, 29);
    return x;
}

/* Where a GTID event's immediate_commit_timestamp is in its packet payload. */
#define GTID_EVENT 33
#define TS_AT (1 + 19 + 42)
#define HEAD (TS_AT + 7)

/* Packet walker for the delays: the header being read, then the payload's first HEAD bytes. */
struct walk {
    uint8_t hdr[4];
    size_t hdr_have;
    size_t left; /* payload bytes still to come (0 and hdr_have < 4: in a header) */
    uint8_t head[HEAD];
    size_t head_have;
    uint32_t *delays;
    size_t count, cap;
};

static void walk_packet_head(struct walk *w, int64_t now_us) {
    if (w->head_have < HEAD || w->head[0] != 0x00 || w->head[1 + 4] != GTID_EVENT) return;
    uint64_t ts = 0;
    for (int i = 6; i >= 0; i--) ts = (ts << 8) | w->head[TS_AT + i];
    ts &= (1ULL << 55) - 1;
    int64_t d = now_us - (int64_t)ts;
    if (d < 0) d = 0;
    if (w->count == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 1 << 16;
        w->delays = realloc(w->delays, w->cap * sizeof *w->delays);
        if (!w->delays) die("out of memory");
    }
    w->delays[w->count++] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

static void walk(struct walk *w, const uint8_t *p, size_t n, int64_t now_us) {
    while (n > 0) {
        if (w->left == 0) {
            size_t take = 4 - w->hdr_have < n ? 4 - w->hdr_have : n;
            memcpy(w->hdr + w->hdr_have, p, take);
            w->hdr_have += take;
            p += take;
            n -= take;
            if (w->hdr_have < 4) return;
            w->hdr_have = 0;
            w->left = w->hdr[0] | (w->hdr[1] << 8) | ((size_t)w->hdr[2] << 16);
            w->head_have = 0;
            if (w->left == 0) continue;
        }
        size_t take = w->left < n ? w->left : n;
        if (w->head_have < HEAD) {
            size_t h = HEAD - w->head_have < take ? HEAD - w->head_have : take;
            memcpy(w->head + w->head_have, p, h);
            w->head_have += h;
            if (w->head_have == HEAD) walk_packet_head(w, now_us);
        }
        w->left -= take;
        p += take;
        n -= take;
    }
}

int main(int argc, char **argv) {
    if (argc < 6) die("usage: dump_reader PORT SERVER_ID FILE POS NONBLOCK [READY_FILE]");
    int port = atoi(argv[1]);
    uint32_t server_id = (uint32_t)strtoul(argv[2], NULL, 10);
    const char *file = argv[3];
    uint32_t pos = (uint32_t)strtoul(argv[4], NULL, 10);
    int non_block = strcmp(argv[5], "1") == 0;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term; /* no SA_RESTART: recv() returns EINTR */
    sigaction(SIGTERM, &sa, NULL);

    const char *sock_path = getenv("DUMP_SOCKET");
    int fd;
    if (sock_path && *sock_path) {
        struct sockaddr_un ua = {.sun_family = AF_UNIX};
        if (strlen(sock_path) >= sizeof ua.sun_path) die("DUMP_SOCKET path too long");
        strcpy(ua.sun_path, sock_path);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0) die("socket");
        if (connect(fd, (struct sockaddr *)&ua, sizeof ua) != 0) die("connect");
    } else {
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) die("socket");
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) die("connect");
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }

    static uint8_t pkt[1 << 16];
    uint8_t seq;
    read_packet(fd, pkt, sizeof pkt, &seq); /* HandshakeV10: nothing in it is needed */

    /* HandshakeResponse41: capabilities, max packet, charset, 23 zeros, user, auth, plugin. */
    uint8_t resp[128];
    size_t n = 0;
    uint32_t caps = 0x1 /* LONG_PASSWORD */ | 0x200 /* PROTOCOL_41 */ | 0x2000 /* TRANSACTIONS */
                    | 0x8000 /* SECURE_CONNECTION */ | 0x80000 /* PLUGIN_AUTH */;
    memcpy(resp + n, &caps, 4), n += 4;
    uint32_t max_packet = 1 << 24;
    memcpy(resp + n, &max_packet, 4), n += 4;
    resp[n++] = 45; /* utf8mb4_general_ci */
    memset(resp + n, 0, 23), n += 23;
    memcpy(resp + n, "root", 5), n += 5;
    resp[n++] = 0; /* empty auth response */
    memcpy(resp + n, "mysql_native_password", 22), n += 22;
    write_packet(fd, resp, n, (uint8_t)(seq + 1));
    for (;;) {
        size_t len = read_packet(fd, pkt, sizeof pkt, &seq);
        if (len > 0 && pkt[0] == 0xfe) { /* AuthSwitchRequest: empty password, empty answer */
            write_packet(fd, NULL, 0, (uint8_t)(seq + 1));
            continue;
        }
        if (len > 0 && pkt[0] == 0x01) continue; /* caching_sha2 "fast auth ok": OK follows */
        expect_ok(pkt, len, "authentication");
        break;
    }

    static const char query[] = "\x03SET @master_binlog_checksum = @@global.binlog_checksum";
    write_packet(fd, (const uint8_t *)query, sizeof query - 1, 0);
    expect_ok(pkt, read_packet(fd, pkt, sizeof pkt, &seq), "SET @master_binlog_checksum");

    /* COM_BINLOG_DUMP: 0x12 | pos u32 | flags u16 (1: NON_BLOCK) | server id u32 | file */
    size_t flen = strlen(file);
    if (flen > 512) die("file name too long");
    uint8_t dump[600];
    n = 0;
    dump[n++] = 0x12;
    memcpy(dump + n, &pos, 4), n += 4;
    uint16_t flags = non_block ? 1 : 0;
    memcpy(dump + n, &flags, 2), n += 2;
    memcpy(dump + n, &server_id, 4), n += 4;
    memcpy(dump + n, file, flen), n += flen;
    write_packet(fd, dump, n, 0);
    if (argc > 6) {
        FILE *ready = fopen(argv[6], "w");
        if (ready) fclose(ready);
    }
    const char *delays_file = argc > 7 && !non_block ? argv[7] : NULL;
    struct walk w;
    memset(&w, 0, sizeof w);

    struct hash h;
    hash_init(&h);
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    size_t kept = 0; /* NONBLOCK: the whole stream is kept to find its last packet */
    if (!buf) die("out of memory");
    while (!stop) {
        if (non_block && cap - kept < (1 << 20)) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf) die("out of memory");
        }
        uint8_t *at = non_block ? buf + kept : buf;
        ssize_t r = recv(fd, at, non_block ? cap - kept : cap, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        if (non_block) {
            kept += (size_t)r;
        } else {
            hash_update(&h, at, (size_t)r);
            if (delays_file) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                walk(&w, at, (size_t)r, (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
            }
        }
    }
    if (delays_file) {
        FILE *f = fopen(delays_file, "w");
        if (!f) die("cannot write the delays file");
        for (size_t i = 0; i < w.count; i++) fprintf(f, "%u\n", w.delays[i]);
        fclose(f);
    }
    if (non_block) {
        /* Walk the packet headers; the last packet is the EOF. */
        size_t at = 0, last = 0;
        while (at + 4 <= kept) {
            size_t len = buf[at] | (buf[at + 1] << 8) | ((size_t)buf[at + 2] << 16);
            last = at;
            at += 4 + len;
        }
        if (at != kept || kept == 0 || buf[last + 4] != 0xfe) die("reference stream does not end with EOF");
        hash_update(&h, buf, last);
    }
    printf("%llu %016llx\n", (unsigned long long)h.total, (unsigned long long)hash_final(&h));
    return 0;
}
