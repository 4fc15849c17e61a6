/*
** test_http.c -- chapter 07's unit tests for the HTTP parser.
**
** Most tests state a message and the transcript it must give (drive.h
** explains the format), and EXPECT_* checks that it gives it fed whole, cut
** at every offset, and one byte at a time. The rest call the API by hand:
** where spans point, what `consumed` says, what sticks and what resets.
*/
#include "drive.h"
#include "taal_check.h"

#include <stdint.h>

/* ---- shorthands --------------------------------------------------------- */

static const drive_opts response = {HTTP_RESPONSE, false, NULL, 0};
static const drive_opts request = {HTTP_REQUEST, false, NULL, 0};
static const drive_opts head_response = {HTTP_RESPONSE, true, NULL, 0};

/* `in` must be a string literal: sizeof keeps any NUL bytes inside it. */
#define EXPECT(opts, in, want) CHECK(expect(&(opts), in, sizeof(in) - 1, want))
#define EXPECT_RESPONSE(in, want) EXPECT(response, in, want)
#define EXPECT_REQUEST(in, want) EXPECT(request, in, want)

/* A table of inputs and the transcripts they give. */
typedef struct example {
    const char *in;
    size_t len;
    const char *want;
} example;

#define EXAMPLE(in, want)        \
    {                            \
        in, sizeof(in) - 1, want \
    }

static bool expect_all(const drive_opts *o, const example *table, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!expect(o, table[i].in, table[i].len, table[i].want)) {
            fprintf(stderr, "  (example %zu of the table)\n", i + 1);
            return false;
        }
    return true;
}

#define OK200 "HTTP/1.1 200 OK\r\n"
#define SAW200 "status 200 1.1 [OK] | "
#define CHUNKED OK200 "Transfer-Encoding: chunked\r\n\r\n"
#define SAW_CHUNKED SAW200 "Transfer-Encoding: chunked | headers chunked keep | "

/* ---- responses: the start line ------------------------------------------ */

TEST(status_line_forms)
{
    static const example table[] = {
        EXAMPLE(OK200 "Content-Length: 0\r\n\r\n",
                SAW200 "Content-Length: 0 | headers length 0 keep | done | eof closed"),
        EXAMPLE("HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n",
                "status 404 1.0 [Not Found] | Content-Length: 0 | "
                "headers length 0 close | done | eof closed"),
        /* No reason, with and without the space before it. */
        EXAMPLE("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
                "status 200 1.1 [] | Content-Length: 0 | headers length 0 keep | "
                "done | eof closed"),
        EXAMPLE("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n",
                "status 200 1.1 [] | Content-Length: 0 | headers length 0 keep | "
                "done | eof closed"),
        /* The reason is kept as sent: inner and trailing whitespace, tabs,
         * bytes over 0x7f. */
        EXAMPLE("HTTP/1.1 500 Server  \tSays \xe9 \r\nContent-Length: 0\r\n\r\n",
                "status 500 1.1 [Server  \\tSays \\xe9 ] | Content-Length: 0 | "
                "headers length 0 keep | done | eof closed"),
        /* 1.x with x > 1 follows the 1.1 rules. */
        EXAMPLE("HTTP/1.2 999 Odd\r\nContent-Length: 0\r\n\r\n",
                "status 999 1.2 [Odd] | Content-Length: 0 | headers length 0 keep | "
                "done | eof closed"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(malformed_status_lines)
{
    static const example table[] = {
        EXAMPLE("HTTP/1.1200 OK\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/1.x 200 OK\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/x.1 200 OK\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/1,1 200 OK\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTPS/1.1 200 OK\r\n\r\n", "error: malformed status line"),
        EXAMPLE("http/1.1 200 OK\r\n\r\n", "error: malformed status line"),
        EXAMPLE("ICY 200 OK\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/1.1\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/1.1 \r\n\r\n", "error: invalid status code"),
        EXAMPLE("\r\nHTTP/1.1 200 OK\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/1.1 200 O\x01K\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/1.1 200 O\0K\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/1.1 200 OK\r\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/1.1 200 OK\rX\r\n\r\n", "error: malformed status line"),
        EXAMPLE("HTTP/2.0 200 OK\r\n\r\n", "error: unsupported HTTP version"),
        EXAMPLE("HTTP/0.9 200 OK\r\n\r\n", "error: unsupported HTTP version"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(status_codes_not_three_digits)
{
    static const example table[] = {
        EXAMPLE("HTTP/1.1 20\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1 20 OK\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1 2000 OK\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1 20a OK\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1 2a0 OK\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1 a00 OK\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1 099 OK\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1 -20 OK\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1 200OK\r\n\r\n", "error: invalid status code"),
        EXAMPLE("HTTP/1.1  200 OK\r\n\r\n", "error: invalid status code"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

/* ---- responses: headers ------------------------------------------------- */

TEST(header_names_ignore_case_and_values_lose_whitespace)
{
    EXPECT_RESPONSE(OK200 "cOnTeNt-LeNgTh:\t 3 \t\r\n"
                          "X-Empty:\r\n"
                          "X-Blank:   \r\n"
                          "X-Inner:   a  b\tc   \r\n"
                          "X-Obs-Text: caf\xc3\xa9\r\n"
                          "!#$%&'*+-.^_`|~09azAZ: token bytes\r\n"
                          "\r\nabc",
                    SAW200 "cOnTeNt-LeNgTh: 3 | X-Empty:  | X-Blank:  | "
                           "X-Inner: a  b\\tc | X-Obs-Text: caf\\xc3\\xa9 | "
                           "!#$%&'*+-.^_`|~09azAZ: token bytes | "
                           "headers length 3 keep | body 3 [abc] | done | eof closed");
}

TEST(malformed_header_names)
{
    static const example table[] = {
        EXAMPLE(OK200 "X : y\r\n\r\n", SAW200 "error: whitespace in header name"),
        EXAMPLE(OK200 "X\t: y\r\n\r\n", SAW200 "error: whitespace in header name"),
        EXAMPLE(OK200 "X Y: z\r\n\r\n", SAW200 "error: whitespace in header name"),
        EXAMPLE(OK200 ": y\r\n\r\n", SAW200 "error: invalid header name"),
        EXAMPLE(OK200 "X\0Y: z\r\n\r\n", SAW200 "error: invalid header name"),
        EXAMPLE(OK200 "X\x01: z\r\n\r\n", SAW200 "error: invalid header name"),
        EXAMPLE(OK200 "X\x7f: z\r\n\r\n", SAW200 "error: invalid header name"),
        EXAMPLE(OK200 "X@Y: z\r\n\r\n", SAW200 "error: invalid header name"),
        EXAMPLE(OK200 "X(Y): z\r\n\r\n", SAW200 "error: invalid header name"),
        EXAMPLE(OK200 "\xc3\xa9: z\r\n\r\n", SAW200 "error: invalid header name"),
        EXAMPLE(OK200 "X\rY: z\r\n\r\n", SAW200 "error: invalid header name"),
        EXAMPLE(OK200 "NoColon\r\n\r\n", SAW200 "error: missing colon in header"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(malformed_header_values)
{
    static const example table[] = {
        EXAMPLE(OK200 "X: a\0b\r\n\r\n", SAW200 "error: invalid header value"),
        EXAMPLE(OK200 "X: a\x7f\r\n\r\n", SAW200 "error: invalid header value"),
        EXAMPLE(OK200 "X: \x1b[31m\r\n\r\n", SAW200 "error: invalid header value"),
        /* CVE-2023-30589's shape: a bare CR must not end a line. */
        EXAMPLE(OK200 "X: \rTransfer-Encoding: chunked\r\n\r\n",
                SAW200 "error: invalid header value"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(obs_fold_is_rejected)
{
    static const example table[] = {
        EXAMPLE(OK200 " X: y\r\n\r\n", SAW200 "error: obsolete line folding in header"),
        EXAMPLE(OK200 "X: y\r\n  more\r\n\r\n",
                SAW200 "X: y | error: obsolete line folding in header"),
        EXAMPLE(OK200 "X: y\r\n\tmore\r\n\r\n",
                SAW200 "X: y | error: obsolete line folding in header"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(bare_lf_is_rejected_everywhere)
{
    static const example table[] = {
        EXAMPLE("HTTP/1.1 200 OK\n\r\n", "error: line ends in LF without CR"),
        EXAMPLE("\n", "error: line ends in LF without CR"),
        EXAMPLE(OK200 "Content-Length: 0\n\r\n",
                SAW200 "error: line ends in LF without CR"),
        EXAMPLE(OK200 "Content-Length: 0\r\n\n",
                SAW200 "Content-Length: 0 | error: line ends in LF without CR"),
        /* CVE-2025-22871's shape: a bare LF after a chunk size. */
        EXAMPLE(CHUNKED "5\nhello\r\n0\r\n\r\n",
                SAW_CHUNKED "error: line ends in LF without CR"),
        EXAMPLE(CHUNKED "0\r\nX: y\n\r\n",
                SAW_CHUNKED "error: line ends in LF without CR"),
        EXAMPLE(CHUNKED "0\r\n\n", SAW_CHUNKED "error: line ends in LF without CR"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

/* ---- responses: framing ------------------------------------------------- */

TEST(content_length_body)
{
    EXPECT_RESPONSE(OK200 "Content-Length: 5\r\n\r\nhello",
                    SAW200 "Content-Length: 5 | headers length 5 keep | "
                           "body 5 [hello] | done | eof closed");
}

TEST(content_length_zero_and_repeated)
{
    EXPECT_RESPONSE(OK200 "Content-Length: 0\r\n\r\n", SAW200
                    "Content-Length: 0 | headers length 0 keep | done | eof closed");
    EXPECT_RESPONSE(OK200 "Content-Length: 2\r\nContent-Length: 002\r\n\r\nhi",
                    SAW200 "Content-Length: 2 | Content-Length: 002 | "
                           "headers length 2 keep | body 2 [hi] | done | eof closed");
}

TEST(invalid_content_lengths)
{
    static const example table[] = {
        EXAMPLE(OK200 "Content-Length: -1\r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length: +5\r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length: 5a\r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length: 0x10\r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length: 1 2\r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length:\r\n\r\n", SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length:   \r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length: 5, 5\r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length: 5,\r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        /* UINT64_MAX + 1 does not fit; UINT64_MAX fits but is over max_body. */
        EXAMPLE(OK200 "Content-Length: 18446744073709551616\r\n\r\n",
                SAW200 "error: invalid Content-Length"),
        EXAMPLE(OK200 "Content-Length: 18446744073709551615\r\n\r\n",
                SAW200 "Content-Length: 18446744073709551615 | error: body too large"),
        EXAMPLE(OK200 "Content-Length: 3\r\nContent-Length: 4\r\n\r\n",
                SAW200 "Content-Length: 3 | error: conflicting Content-Length values"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(chunked_body)
{
    EXPECT_RESPONSE(CHUNKED "5\r\nhello\r\n"
                            "A;name=value\r\n0123456789\r\n"
                            "1 ;bws\r\n!\r\n"
                            "1\t; a=\"quoted; \\\" value\"\r\n?\r\n"
                            "000c\r\ntwelve bytes\r\n"
                            "0000\r\n\r\n",
                    SAW_CHUNKED "body 29 [hello0123456789!?twelve bytes] | done | "
                                "eof closed");
}

TEST(chunked_trailers)
{
    EXPECT_RESPONSE(CHUNKED "5\r\nhello\r\n0\r\nExpires: never\r\n"
                            "Content-Length: 99\r\nX-Sum:  7 \r\n\r\n",
                    SAW_CHUNKED "body 5 [hello] | trailer Expires: never | "
                                "trailer Content-Length: 99 | trailer X-Sum: 7 | done | "
                                "eof closed");
}

TEST(invalid_chunk_sizes)
{
    static const example table[] = {
        EXAMPLE(CHUNKED "\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED "g\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED " 5\r\nhello\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED "5 \r\nhello\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED "-5\r\nhello\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED "0x5\r\nhello\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED "+5\r\nhello\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED "5;a\x01\r\nhello\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED "5;a\rb\r\nhello\r\n", SAW_CHUNKED "error: invalid chunk size"),
        EXAMPLE(CHUNKED "5\r\nhello\r\n5x\r\n",
                SAW_CHUNKED "body 5 [hello] | error: invalid chunk size"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(chunk_data_must_end_in_crlf)
{
    static const example table[] = {
        EXAMPLE(CHUNKED "5\r\nhelloX\r\n0\r\n\r\n",
                SAW_CHUNKED "body 5 [hello] | error: missing CRLF after chunk data"),
        EXAMPLE(CHUNKED "5\r\nhello\rX0\r\n\r\n",
                SAW_CHUNKED "body 5 [hello] | error: missing CRLF after chunk data"),
        EXAMPLE(CHUNKED "5\r\nhello\n0\r\n\r\n",
                SAW_CHUNKED "body 5 [hello] | error: missing CRLF after chunk data"),
        EXAMPLE(CHUNKED "5\r\nhello\r\r\n0\r\n\r\n",
                SAW_CHUNKED "body 5 [hello] | error: missing CRLF after chunk data"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(malformed_trailers)
{
    static const example table[] = {
        EXAMPLE(CHUNKED "0\r\nX : y\r\n\r\n",
                SAW_CHUNKED "error: whitespace in header name"),
        EXAMPLE(CHUNKED "0\r\nX: \x01\r\n\r\n",
                SAW_CHUNKED "error: invalid header value"),
        EXAMPLE(CHUNKED "0\r\nX: y\r\n z\r\n\r\n",
                SAW_CHUNKED "trailer X: y | error: obsolete line folding in header"),
        EXAMPLE(CHUNKED "0\r\nX\r\n\r\n", SAW_CHUNKED "error: missing colon in header"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(transfer_encoding_must_be_exactly_chunked)
{
    static const example table[] = {
        EXAMPLE(OK200 "Transfer-Encoding: gzip\r\n\r\n",
                SAW200 "Transfer-Encoding: gzip | error: unsupported Transfer-Encoding"),
        EXAMPLE(OK200 "Transfer-Encoding: gzip, chunked\r\n\r\n",
                SAW200 "Transfer-Encoding: gzip, chunked | "
                       "error: unsupported Transfer-Encoding"),
        EXAMPLE(OK200 "Transfer-Encoding: chunked, chunked\r\n\r\n",
                SAW200 "Transfer-Encoding: chunked, chunked | "
                       "error: unsupported Transfer-Encoding"),
        EXAMPLE(OK200 "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
                SAW200 "Transfer-Encoding: chunked | Transfer-Encoding: chunked | "
                       "error: unsupported Transfer-Encoding"),
        EXAMPLE(OK200 "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
                SAW200 "Transfer-Encoding: chunked | Transfer-Encoding: gzip | "
                       "error: unsupported Transfer-Encoding"),
        EXAMPLE(OK200 "Transfer-Encoding:\r\n\r\n",
                SAW200 "Transfer-Encoding:  | error: unsupported Transfer-Encoding"),
        EXAMPLE(OK200 "Transfer-Encoding: chunkedx\r\n\r\n",
                SAW200 "Transfer-Encoding: chunkedx | "
                       "error: unsupported Transfer-Encoding"),
        /* Accepted: any case, empty list elements, whitespace around. */
        EXAMPLE(OK200 "transfer-encoding: , CHUNKED ,\r\n\r\n0\r\n\r\n",
                SAW200 "transfer-encoding: , CHUNKED , | headers chunked keep | done | "
                       "eof closed"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(content_length_with_transfer_encoding_is_smuggling)
{
    static const example table[] = {
        EXAMPLE(OK200 "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
                SAW200 "Content-Length: 3 | Transfer-Encoding: chunked | "
                       "error: conflicting Content-Length and Transfer-Encoding"),
        EXAMPLE(OK200 "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
                SAW200 "Transfer-Encoding: chunked | Content-Length: 3 | "
                       "error: conflicting Content-Length and Transfer-Encoding"),
        /* Even where no body follows: the message is still ambiguous. */
        EXAMPLE("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n"
                "Transfer-Encoding: chunked\r\n\r\n",
                "status 204 1.1 [No Content] | Content-Length: 0 | "
                "Transfer-Encoding: chunked | "
                "error: conflicting Content-Length and Transfer-Encoding"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(read_to_close_body)
{
    EXPECT_RESPONSE(OK200 "\r\nall of it\r\n\r\nand more", SAW200
                    "headers eof close | body 21 [all of it\\r\\n\\r\\nand more] | "
                    "eof done");
    EXPECT_RESPONSE("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n",
                    "status 200 1.0 [OK] | Connection: keep-alive | headers eof close | "
                    "eof done");
}

TEST(responses_without_a_body)
{
    static const example table[] = {
        EXAMPLE("HTTP/1.1 204 No Content\r\n\r\n",
                "status 204 1.1 [No Content] | headers none keep | done | eof closed"),
        /* The Content-Length of a 304 describes the resource, not this body:
         * the bytes after the headers are the next response. */
        EXAMPLE("HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n"
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
                "status 304 1.1 [Not Modified] | Content-Length: 100 | "
                "headers none keep | done | " SAW200 "Content-Length: 2 | "
                "headers length 2 keep | body 2 [hi] | done | eof closed"),
        /* 1xx are interim: the final response follows on the same connection. */
        EXAMPLE("HTTP/1.1 100 Continue\r\n\r\n"
                "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
                "status 100 1.1 [Continue] | headers none keep | done | "
                "status 103 1.1 [Early Hints] | Link: </a.css> | headers none keep | "
                "done | " SAW200 "Content-Length: 2 | headers length 2 keep | "
                "body 2 [hi] | done | eof closed"),
        /* After 101 the connection speaks another protocol: not kept for HTTP. */
        EXAMPLE("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\n\r\n",
                "status 101 1.1 [Switching Protocols] | Upgrade: websocket | "
                "Connection: Upgrade | headers none close | done | eof closed"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

TEST(responses_to_head_have_no_body)
{
    EXPECT(head_response,
           OK200 "Content-Length: 1000\r\n\r\n" CHUNKED "HTTP/1.0 200 OK\r\n\r\n",
           SAW200 "Content-Length: 1000 | headers none keep | done | " SAW200
                  "Transfer-Encoding: chunked | headers none keep | done | "
                  "status 200 1.0 [OK] | headers none close | done | eof closed");
}

/* ---- keep-alive --------------------------------------------------------- */

TEST(keep_alive_rules)
{
    static const example table[] = {
        EXAMPLE(OK200 "Connection: close\r\nContent-Length: 0\r\n\r\n",
                SAW200 "Connection: close | Content-Length: 0 | headers length 0 close | "
                       "done | eof closed"),
        EXAMPLE(OK200 "Connection: Upgrade,  CLOSE ,x\r\nContent-Length: 0\r\n\r\n",
                SAW200 "Connection: Upgrade,  CLOSE ,x | Content-Length: 0 | "
                       "headers length 0 close | done | eof closed"),
        EXAMPLE(OK200 "Connection: closed\r\nContent-Length: 0\r\n\r\n",
                SAW200 "Connection: closed | Content-Length: 0 | headers length 0 keep | "
                       "done | eof closed"),
        EXAMPLE(OK200 "Connection: a\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
                SAW200 "Connection: a | Connection: close | Content-Length: 0 | "
                       "headers length 0 close | done | eof closed"),
        EXAMPLE("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
                "status 200 1.0 [OK] | Content-Length: 0 | headers length 0 close | "
                "done | eof closed"),
        EXAMPLE("HTTP/1.0 200 OK\r\nconnection: KEEP-ALIVE\r\nContent-Length: 0\r\n\r\n",
                "status 200 1.0 [OK] | connection: KEEP-ALIVE | Content-Length: 0 | "
                "headers length 0 keep | done | eof closed"),
        EXAMPLE("HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\n"
                "Content-Length: 0\r\n\r\n",
                "status 200 1.0 [OK] | Connection: keep-alive, close | "
                "Content-Length: 0 | headers length 0 close | done | eof closed"),
        /* Transfer-Encoding in a 1.0 message: parse it, then close. */
        EXAMPLE("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n"
                "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "status 200 1.0 [OK] | Connection: keep-alive | "
                "Transfer-Encoding: chunked | headers chunked close | done | eof closed"),
    };
    CHECK(expect_all(&response, table, TAAL_COUNT(table)));
}

/* ---- pipelining --------------------------------------------------------- */

TEST(two_pipelined_responses_in_one_buffer)
{
    EXPECT_RESPONSE(OK200 "Content-Length: 5\r\n\r\nhello" CHUNKED
                          "3\r\nbye\r\n0\r\n\r\n",
                    SAW200 "Content-Length: 5 | headers length 5 keep | body 5 [hello] | "
                           "done | " SAW_CHUNKED "body 3 [bye] | done | eof closed");
}

/* The same by hand: what `consumed` says, and where the second message starts. */
TEST(pipelined_consumed_counts)
{
    static const char in[] =
        OK200 "Content-Length: 2\r\n\r\nhi" OK200 "Content-Length: 0\r\n\r\n";
    const size_t first = sizeof OK200 - 1 + 21 + 2;
    http_parser p;
    http_event ev;
    size_t at = 0;
    CHECK_EQ(http_parser_init(&p, HTTP_RESPONSE, NULL), HTTP_OK);
    const int want[] = {HTTP_STATUS_LINE, HTTP_HEADER, HTTP_HEADERS_DONE, HTTP_BODY,
                        HTTP_MESSAGE_DONE};
    for (size_t i = 0; i < TAAL_COUNT(want); i++) {
        CHECK_EQ(http_parse(&p, in + at, sizeof in - 1 - at, &ev), want[i]);
        at += ev.consumed;
    }
    CHECK_EQ(ev.consumed, 0);
    CHECK_EQ(at, first);
    CHECK_EQ(p.body_bytes, 2);
    http_parser_reset(&p);
    CHECK_EQ(http_parse(&p, in + at, sizeof in - 1 - at, &ev), HTTP_STATUS_LINE);
    CHECK_EQ(ev.consumed, sizeof OK200 - 1);
}

/* ---- requests ----------------------------------------------------------- */

TEST(request_without_body)
{
    EXPECT_REQUEST("GET /index.html?q=1&r=%20 HTTP/1.1\r\nHost: example.com\r\n\r\n",
                   "request GET /index.html?q=1&r=%20 1.1 | Host: example.com | "
                   "headers none keep | done | eof closed");
}

TEST(request_with_content_length)
{
    EXPECT_REQUEST("POST /submit HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody",
                   "request POST /submit 1.1 | Host: x | Content-Length: 4 | "
                   "headers length 4 keep | body 4 [body] | done | eof closed");
}

TEST(request_with_chunked_body)
{
    EXPECT_REQUEST("PUT /f HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "3\r\nabc\r\n0\r\nX-Check: 1\r\n\r\n",
                   "request PUT /f 1.1 | Transfer-Encoding: chunked | "
                   "headers chunked keep | body 3 [abc] | trailer X-Check: 1 | done | "
                   "eof closed");
}

/* RFC 9112 2.2: a server ignores empty lines before a request line, such as
 * the CRLF some clients send after a POST body. */
TEST(empty_lines_before_a_request_are_skipped)
{
    EXPECT_REQUEST("\r\n\r\nGET / HTTP/1.1\r\n\r\n",
                   "request GET / 1.1 | headers none keep | done | eof closed");
    EXPECT_REQUEST(
        "POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nx\r\nGET /b HTTP/1.1\r\n\r\n",
        "request POST / 1.1 | Content-Length: 1 | headers length 1 keep | "
        "body 1 [x] | done | request GET /b 1.1 | headers none keep | done | "
        "eof closed");
    EXPECT_REQUEST("\r\n\r\n", "eof closed");
    EXPECT_REQUEST("\r\n\r", "eof error: unexpected end of message");
}

/* But only a few (http_limits.max_empty_lines): each is consumed, so an
 * endless stream of CRLFs would otherwise be read forever, and never be
 * an error. The count starts again with each request. */
TEST(empty_lines_before_a_request_are_bounded)
{
    EXPECT_REQUEST("\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n",
                   "request GET / 1.1 | headers none keep | done | eof closed");
    EXPECT_REQUEST("\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n",
                   "error: malformed request line");
    EXPECT_REQUEST("\r\n\r\n\r\n\r\nGET /a HTTP/1.1\r\n\r\n"
                   "\r\n\r\n\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
                   "request GET /a 1.1 | headers none keep | done | "
                   "request GET /b 1.1 | headers none keep | done | eof closed");
    static char flood[1 << 20]; /* a megabyte of them fails, and fast */
    for (size_t i = 0; i < sizeof flood; i += 2)
        memcpy(flood + i, "\r\n", 2);
    http_parser p;
    http_event ev;
    CHECK_EQ(http_parser_init(&p, HTTP_REQUEST, NULL), HTTP_OK);
    CHECK_EQ(http_parse(&p, flood, sizeof flood, &ev), HTTP_EREQUEST_LINE);
    CHECK_EQ(ev.consumed, 2 * p.limits.max_empty_lines);
    CHECK_EQ(http_error_status(HTTP_EREQUEST_LINE), 400);
    http_limits none = http_limits_default();
    none.max_empty_lines = 0;
    CHECK_EQ(http_parser_init(&p, HTTP_REQUEST, &none), HTTP_OK);
    CHECK_EQ(http_parse(&p, "\r\nGET / HTTP/1.1\r\n\r\n", 20, &ev), HTTP_EREQUEST_LINE);
}

TEST(pipelined_requests_and_keep_alive)
{
    EXPECT_REQUEST(
        "GET /a HTTP/1.1\r\n\r\n"
        "POST /b HTTP/1.1\r\nContent-Length: 1\r\n\r\nx"
        "GET /c HTTP/1.1\r\nConnection: close\r\n\r\n"
        "GET /d HTTP/1.0\r\n\r\n"
        "GET /e HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "request GET /a 1.1 | headers none keep | done | "
        "request POST /b 1.1 | Content-Length: 1 | headers length 1 keep | "
        "body 1 [x] | done | request GET /c 1.1 | Connection: close | "
        "headers none close | done | request GET /d 1.0 | headers none close | "
        "done | request GET /e 1.0 | Connection: keep-alive | "
        "headers none keep | done | eof closed");
}

TEST(malformed_request_lines)
{
    static const example table[] = {
        EXAMPLE("GET  / HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET /\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET / HTTP/1.1 \r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET\t/ HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET /a b HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET /\x01 HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET /\xff HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET /\x7f HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET\r\n\r\n", "error: malformed request line"),
        EXAMPLE("G@T / HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("/ HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE(" GET / HTTP/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET / http/1.1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET / HTTP/1.1x\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET / HTTP/1\r\n\r\n", "error: malformed request line"),
        EXAMPLE("GET / HTTP/2.0\r\n\r\n", "error: unsupported HTTP version"),
        EXAMPLE("GET / HTTP/1.1\n\r\n", "error: line ends in LF without CR"),
    };
    CHECK(expect_all(&request, table, TAAL_COUNT(table)));
}

TEST(malformed_request_framing)
{
    static const example table[] = {
        EXAMPLE("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
                "request POST / 1.1 | Transfer-Encoding: gzip | "
                "error: unsupported Transfer-Encoding"),
        EXAMPLE(
            "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            "request POST / 1.1 | Content-Length: 3 | Transfer-Encoding: chunked | "
            "error: conflicting Content-Length and Transfer-Encoding"),
        EXAMPLE("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                "request POST / 1.1 | Content-Length: 1 | "
                "error: conflicting Content-Length values"),
    };
    CHECK(expect_all(&request, table, TAAL_COUNT(table)));
}

/* ---- the end of input --------------------------------------------------- */

/*
** Cuts `in` after every byte, signals EOF there, and checks what the parser
** says: HTTP_CLOSED before the first byte and after the last, HTTP_EEOF in
** between, except from `done_from` on (a read-to-close body), where the
** message is complete.
*/
static bool eof_everywhere(const drive_opts *o, const char *in, size_t n,
                           size_t done_from)
{
    transcript t;
    for (size_t k = 0; k <= n; k++) {
        int want = k == 0 || k == n ? HTTP_CLOSED
                   : k >= done_from ? HTTP_MESSAGE_DONE
                                    : HTTP_EEOF;
        if (k == n && done_from <= n)
            want = HTTP_MESSAGE_DONE;
        for (size_t stride = 0; stride <= 1; stride++) {
            int got = drive(o, in, k, 0, stride, &t);
            if (got != want) {
                fprintf(stderr, "eof after %zu bytes: expected %s, got %s\n  %s\n", k,
                        http_strerror(want), http_strerror(got), t.text);
                return false;
            }
        }
    }
    return true;
}

#define NEVER ((size_t)-1)

TEST(eof_in_every_state_of_a_content_length_response)
{
    static const char in[] = OK200 "Content-Length: 3\r\n\r\nabc";
    CHECK(eof_everywhere(&response, in, sizeof in - 1, NEVER));
}

TEST(eof_in_every_state_of_a_chunked_response)
{
    static const char in[] = CHUNKED "3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n";
    CHECK(eof_everywhere(&response, in, sizeof in - 1, NEVER));
}

TEST(eof_in_every_state_of_a_read_to_close_response)
{
    static const char in[] = OK200 "X: y\r\n\r\nbody";
    CHECK(eof_everywhere(&response, in, sizeof in - 1, sizeof OK200 - 1 + 8));
}

TEST(eof_in_every_state_of_a_request)
{
    static const char in[] = "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi";
    CHECK(eof_everywhere(&request, in, sizeof in - 1, NEVER));
}

TEST(eof_messages_are_exact)
{
    EXPECT_RESPONSE("HTTP/1.1 2", "eof error: unexpected end of message");
    EXPECT_RESPONSE(OK200 "Content-Length: 5\r\n\r\nhel",
                    SAW200 "Content-Length: 5 | headers length 5 keep | body 3 [hel] | "
                           "eof error: unexpected end of message");
    EXPECT_RESPONSE(CHUNKED "5\r\nhello\r",
                    SAW_CHUNKED "body 5 [hello] | eof error: unexpected end of message");
    EXPECT_RESPONSE("", "eof closed");
}

/* ---- bounds: each at the limit, then one over ----------------------------- */

/* A response parser with these limits; the tests change one field each. */
static drive_opts bounded(const http_limits *limits)
{
    drive_opts o = {HTTP_RESPONSE, false, limits, 0};
    return o;
}

TEST(bound_start_line)
{
    http_limits l = http_limits_default();
    l.max_start_line = 20;
    drive_opts o = bounded(&l);
    EXPECT(
        o, "HTTP/1.1 200 ABCDEFG\r\nContent-Length: 0\r\n\r\n",
        "status 200 1.1 [ABCDEFG] | Content-Length: 0 | headers length 0 keep | done | "
        "eof closed");
    EXPECT(o, "HTTP/1.1 200 ABCDEFGH\r\nContent-Length: 0\r\n\r\n",
           "error: start line too long");
    /* It fails as soon as limit + 2 bytes have come without an LF. */
    EXPECT(o, "HTTP/1.1 200 ABCDEFGH\r", "error: start line too long");
    EXPECT(o, "HTTP/1.1 200 ABCDEFG\r", "eof error: unexpected end of message");
}

TEST(bound_start_line_of_a_request)
{
    http_limits l = http_limits_default();
    l.max_start_line = 16;
    drive_opts o = {HTTP_REQUEST, false, &l, 0};
    EXPECT(o, "GET /ab HTTP/1.1\r\n\r\n",
           "request GET /ab 1.1 | headers none keep | "
           "done | eof closed");
    EXPECT(o, "GET /abc HTTP/1.1\r\n\r\n", "error: start line too long");
    CHECK_EQ(http_error_status(HTTP_ESTART_TOO_LONG), 414);
}

TEST(bound_header_line)
{
    http_limits l = http_limits_default();
    l.max_header_line = 16;
    drive_opts o = bounded(&l);
    EXPECT(o, OK200 "X-Long: 12345678\r\n\r\n",
           SAW200 "X-Long: 12345678 | headers eof close | eof done");
    EXPECT(o, OK200 "X-Long: 123456789\r\n\r\n", SAW200 "error: header line too long");
}

TEST(bound_header_count)
{
    http_limits l = http_limits_default();
    l.max_headers = 3;
    drive_opts o = bounded(&l);
    EXPECT(o, OK200 "A: 1\r\nB: 2\r\nC: 3\r\n\r\n",
           SAW200 "A: 1 | B: 2 | C: 3 | headers eof close | eof done");
    EXPECT(o, OK200 "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
           SAW200 "A: 1 | B: 2 | C: 3 | error: too many headers");
}

TEST(bound_header_bytes)
{
    http_limits l = http_limits_default();
    l.max_header_bytes = 20; /* "A: 1234567890\r\n" is 15, "B: 1\r\n" is 6 */
    drive_opts o = bounded(&l);
    EXPECT(o, OK200 "A: 1234567890\r\nB:\r\n\r\n",
           SAW200 "A: 1234567890 | B:  | headers eof close | eof done");
    EXPECT(o, OK200 "A: 1234567890\r\nB: 1\r\n\r\n",
           SAW200 "A: 1234567890 | error: headers too large");
}

TEST(bound_trailers_share_the_header_bounds)
{
    http_limits l = http_limits_default();
    l.max_headers = 2;
    drive_opts o = bounded(&l);
    EXPECT(o, CHUNKED "0\r\nT: 1\r\n\r\n",
           SAW_CHUNKED "trailer T: 1 | done | eof closed");
    EXPECT(o, CHUNKED "0\r\nT: 1\r\nU: 2\r\n\r\n",
           SAW_CHUNKED "trailer T: 1 | error: too many headers");
    l = http_limits_default();
    l.max_header_line = 26; /* "Transfer-Encoding: chunked" */
    EXPECT(o, CHUNKED "0\r\nT: 34567890123456789012345\r\n\r\n",
           SAW_CHUNKED "trailer T: 34567890123456789012345 | done | eof closed");
    EXPECT(o, CHUNKED "0\r\nT: 345678901234567890123456\r\n\r\n",
           SAW_CHUNKED "error: header line too long");
}

TEST(bound_chunk_digits)
{
    http_limits l = http_limits_default();
    l.max_chunk_digits = 4;
    drive_opts o = bounded(&l);
    EXPECT(o, CHUNKED "000A\r\n0123456789\r\n0\r\n\r\n",
           SAW_CHUNKED "body 10 [0123456789] | done | eof closed");
    EXPECT(o, CHUNKED "0000A\r\n0123456789\r\n0\r\n\r\n",
           SAW_CHUNKED "error: chunk size has too many digits");
    EXPECT(o, CHUNKED "00000\r\n\r\n",
           SAW_CHUNKED "error: chunk size has too many digits");
}

/* At the default of 16 digits, the largest size is UINT64_MAX and nothing
 * can overflow, not even the running sum of the sizes. */
TEST(bound_chunk_digits_at_64_bits)
{
    http_limits l = http_limits_default();
    drive_opts o = bounded(&l);
    EXPECT(o, CHUNKED "000000000000000A\r\n0123456789\r\n0\r\n\r\n",
           SAW_CHUNKED "body 10 [0123456789] | done | eof closed");
    EXPECT(o, CHUNKED "0000000000000000A\r\n",
           SAW_CHUNKED "error: chunk size has too many digits");
    EXPECT(o, CHUNKED "FFFFFFFFFFFFFFFF\r\n", SAW_CHUNKED "error: body too large");
    l.max_body = UINT64_MAX;
    EXPECT(o, CHUNKED "FFFFFFFFFFFFFFFF\r\nab",
           SAW_CHUNKED "body 2 [ab] | eof error: unexpected end of message");
    /* The sum of the sizes is checked before it is added: a second chunk
     * can never push it past max_body, even at UINT64_MAX. */
    l.max_body = 0x10;
    EXPECT(o, CHUNKED "8\r\n01234567\r\n9\r\n",
           SAW_CHUNKED "body 8 [01234567] | error: body too large");
}

TEST(bound_chunk_line)
{
    http_limits l = http_limits_default();
    l.max_chunk_line = 10;
    drive_opts o = bounded(&l);
    EXPECT(o, CHUNKED "5;abcdefgh\r\nhello\r\n0\r\n\r\n",
           SAW_CHUNKED "body 5 [hello] | done | eof closed");
    EXPECT(o, CHUNKED "5;abcdefghi\r\nhello\r\n0\r\n\r\n",
           SAW_CHUNKED "error: chunk-size line too long");
}

TEST(bound_body_by_content_length)
{
    http_limits l = http_limits_default();
    l.max_body = 10;
    drive_opts o = bounded(&l);
    EXPECT(o, OK200 "Content-Length: 10\r\n\r\n0123456789",
           SAW200 "Content-Length: 10 | headers length 10 keep | body 10 [0123456789] | "
                  "done | eof closed");
    EXPECT(o, OK200 "Content-Length: 11\r\n\r\n0123456789A",
           SAW200 "Content-Length: 11 | error: body too large");
    /* A HEAD response's length is not a body: no bound applies. */
    o.head = true;
    EXPECT(o, OK200 "Content-Length: 11\r\n\r\n",
           SAW200 "Content-Length: 11 | headers none keep | done | eof closed");
    CHECK_EQ(http_error_status(HTTP_EBODY_TOO_LARGE), 413);
}

TEST(bound_body_by_chunks)
{
    http_limits l = http_limits_default();
    l.max_body = 10;
    drive_opts o = bounded(&l);
    EXPECT(o, CHUNKED "5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n",
           SAW_CHUNKED "body 10 [helloworld] | done | eof closed");
    EXPECT(o, CHUNKED "5\r\nhello\r\n5\r\nworld\r\n1\r\n!\r\n0\r\n\r\n",
           SAW_CHUNKED "body 10 [helloworld] | error: body too large");
    EXPECT(o, CHUNKED "B\r\n", SAW_CHUNKED "error: body too large");
}

TEST(bound_body_read_to_close)
{
    http_limits l = http_limits_default();
    l.max_body = 10;
    drive_opts o = bounded(&l);
    EXPECT(o, OK200 "\r\n0123456789",
           SAW200 "headers eof close | body 10 [0123456789] | "
                  "eof done");
    EXPECT(o, OK200 "\r\n0123456789A",
           SAW200 "headers eof close | body 10 [0123456789] | "
                  "error: body too large");
}

/* The default line limits, at the limit and one over, with long lines. */
static bool long_line_bound(size_t limit, bool header, bool over)
{
    static char in[9000];
    transcript t;
    size_t n =
        (size_t)snprintf(in, sizeof in, "%s", header ? OK200 "X: " : "HTTP/1.1 200 ");
    size_t line = header ? n - (sizeof OK200 - 1) : n;
    while (line < limit + over)
        in[n++] = 'a', line++;
    n += (size_t)snprintf(in + n, sizeof in - n, "\r\n%s", header ? "\r\n" : "\r\n\r\n");
    drive_opts o = {HTTP_RESPONSE, false, NULL, http_min_buffer(NULL)};
    const char *want = !over    ? "eof done"
                       : header ? "header line too long"
                                : "start line too long";
    /* Whole, at a few cuts, one byte at a time: transcripts end the same. */
    size_t cuts[] = {0, 1, limit / 2, limit, n - 1};
    for (size_t i = 0; i <= TAAL_COUNT(cuts); i++) {
        drive(&o, in, n, i < TAAL_COUNT(cuts) ? cuts[i] : 0, i < TAAL_COUNT(cuts) ? 0 : 1,
              &t);
        if (t.len < strlen(want) || strcmp(t.text + t.len - strlen(want), want) != 0) {
            fprintf(stderr, "expected ...%s, got %s\n", want, t.text);
            return false;
        }
    }
    return true;
}

TEST(bound_default_line_limits)
{
    http_limits d = http_limits_default();
    CHECK(long_line_bound(d.max_start_line, false, false));
    CHECK(long_line_bound(d.max_start_line, false, true));
    CHECK(long_line_bound(d.max_header_line, true, false));
    CHECK(long_line_bound(d.max_header_line, true, true));
}

/* A stream whose buffer is http_min_buffer() bytes never fills up waiting
 * for a line; one byte smaller, a line at the limit stalls it. */
TEST(min_buffer_is_enough_and_tight)
{
    http_limits l = http_limits_default();
    l.max_start_line = 20;
    l.max_header_line = 12;
    l.max_chunk_line = 8;
    CHECK_EQ(http_min_buffer(&l), 22);
    CHECK_EQ(http_min_buffer(NULL), 8194);
    http_limits chunky = l;
    chunky.max_chunk_line = 40;
    CHECK_EQ(http_min_buffer(&chunky), 42);
    static const char in[] = "HTTP/1.1 200 ABCDEFG\r\nTransfer-Encoding: chunked\r\n"
                             "\r\n5;abcdef\r\nhello\r\n0\r\n\r\n";
    l.max_header_line = 26;
    drive_opts o = {HTTP_RESPONSE, false, &l, http_min_buffer(&l)};
    const char *want = "status 200 1.1 [ABCDEFG] | Transfer-Encoding: chunked | "
                       "headers chunked keep | body 5 [hello] | done | eof closed";
    CHECK(expect(&o, in, sizeof in - 1, want));
    transcript t;
    o.capacity--;
    drive(&o, in, sizeof in - 1, 0, 1, &t);
    CHECK(strstr(t.text, "BREACH: stalled with a full buffer") != NULL);
}

TEST(limits_defaults_and_validation)
{
    http_limits d = http_limits_default();
    CHECK_EQ(d.max_start_line, 8192);
    CHECK_EQ(d.max_header_line, 8192);
    CHECK_EQ(d.max_headers, 100);
    CHECK_EQ(d.max_header_bytes, 65536);
    CHECK_EQ(d.max_chunk_digits, 16);
    CHECK_EQ(d.max_chunk_line, 1024);
    CHECK_EQ(d.max_body, 16 << 20);
    CHECK_EQ(d.max_empty_lines, 4);
    http_parser p;
    CHECK_EQ(http_parser_init(NULL, HTTP_RESPONSE, NULL), HTTP_EINVAL);
    CHECK_EQ(http_parser_init(&p, (http_kind)7, NULL), HTTP_EINVAL);
    http_limits l = d;
    l.max_chunk_digits = 0;
    CHECK_EQ(http_parser_init(&p, HTTP_RESPONSE, &l), HTTP_EINVAL);
    l.max_chunk_digits = 17;
    CHECK_EQ(http_parser_init(&p, HTTP_RESPONSE, &l), HTTP_EINVAL);
    l = d;
    l.max_header_line = SIZE_MAX;
    CHECK_EQ(http_parser_init(&p, HTTP_RESPONSE, &l), HTTP_EINVAL);
    l = d;
    l.max_start_line = SIZE_MAX / 2 + 1;
    CHECK_EQ(http_parser_init(&p, HTTP_RESPONSE, &l), HTTP_EINVAL);
    l = d;
    l.max_chunk_line = SIZE_MAX / 2 + 1;
    CHECK_EQ(http_parser_init(&p, HTTP_RESPONSE, &l), HTTP_EINVAL);
    l = d;
    l.max_header_line = SIZE_MAX / 2;
    CHECK_EQ(http_parser_init(&p, HTTP_REQUEST, &l), HTTP_OK);
    CHECK_EQ(p.kind, HTTP_REQUEST);
    CHECK_EQ(p.limits.max_header_line, SIZE_MAX / 2);
}

/* ---- the API by hand ---------------------------------------------------- */

/* Names and values are spans of the caller's own bytes: nothing is copied. */
TEST(spans_point_into_the_input)
{
    static const char in[] = OK200 "Name:  value \r\n\r\n";
    http_parser p;
    http_event ev;
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    CHECK_EQ(http_parse(&p, in, sizeof in - 1, &ev), HTTP_STATUS_LINE);
    CHECK(ev.reason.at == in + 13 && ev.reason.len == 2);
    CHECK_EQ(p.status_code, 200);
    CHECK_EQ(p.version_minor, 1);
    size_t at = ev.consumed;
    CHECK_EQ(http_parse(&p, in + at, sizeof in - 1 - at, &ev), HTTP_HEADER);
    CHECK(ev.name.at == in + at && ev.name.len == 4);
    CHECK(ev.value.at == in + at + 7 && ev.value.len == 5);
    CHECK(ev.body.at == NULL && ev.reason.at == NULL);
    CHECK(http_span_is(ev.name, "NAME"));
}

TEST(fields_after_headers_done)
{
    static const char in[] = "HTTP/1.0 203 Hi\r\nContent-Length: 7\r\n"
                             "Connection: keep-alive\r\n\r\n";
    http_parser p;
    http_event ev;
    size_t at = 0;
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    int rc;
    while ((rc = http_parse(&p, in + at, sizeof in - 1 - at, &ev)) != HTTP_HEADERS_DONE) {
        CHECK(rc > HTTP_NEED_MORE);
        at += ev.consumed;
    }
    CHECK_EQ(p.status_code, 203);
    CHECK_EQ(p.version_minor, 0);
    CHECK_EQ(p.framing, HTTP_FRAMING_LENGTH);
    CHECK_EQ(p.content_length, 7);
    CHECK(p.keep_alive);
    CHECK_EQ(p.body_bytes, 0);
    CHECK_EQ(http_parse(&p, "abc", 3, &ev), HTTP_BODY);
    CHECK_EQ(p.body_bytes, 3);
}

TEST(a_line_is_kept_until_its_end_arrives)
{
    static const char in[] = OK200 "Content-Length: 0\r\n\r\n";
    http_parser p;
    http_event ev;
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    CHECK_EQ(http_parse(&p, in, 10, &ev), HTTP_NEED_MORE);
    CHECK_EQ(ev.consumed, 0);
    /* Passing fewer bytes than were kept is a caller's mistake, not the
     * message's: HTTP_EINVAL, and the parser carries on. */
    CHECK_EQ(http_parse(&p, in, 9, &ev), HTTP_EINVAL);
    CHECK_EQ(http_parse(&p, in, 16, &ev), HTTP_NEED_MORE);
    CHECK_EQ(http_parse(&p, in, 17, &ev), HTTP_STATUS_LINE);
    CHECK_EQ(ev.consumed, 17);
}

TEST(argument_errors)
{
    http_parser p;
    http_event ev;
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    CHECK_EQ(http_parse(NULL, "x", 1, &ev), HTTP_EINVAL);
    CHECK_EQ(ev.consumed, 0);
    CHECK_EQ(http_parse(&p, "x", 1, NULL), HTTP_EINVAL);
    CHECK_EQ(http_parse(&p, NULL, 1, &ev), HTTP_EINVAL);
    CHECK_EQ(http_parse(&p, NULL, 0, &ev), HTTP_NEED_MORE);
    CHECK_EQ(http_parse_eof(NULL), HTTP_EINVAL);
    http_parser_reset(NULL); /* harmless */
    CHECK_EQ(http_parse_eof(&p), HTTP_CLOSED);
    CHECK_EQ(http_parse(&p, "HTTP", 4, &ev), HTTP_CLOSED); /* closed sticks */
    CHECK_EQ(http_parse_eof(&p), HTTP_CLOSED);
}

TEST(errors_stick_until_reset)
{
    http_parser p;
    http_event ev;
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    CHECK_EQ(http_parse(&p, "HTTP/1.1 20\r\n", 13, &ev), HTTP_ESTATUS_CODE);
    CHECK_EQ(ev.consumed, 0);
    CHECK_EQ(http_parse(&p, OK200, sizeof OK200 - 1, &ev), HTTP_ESTATUS_CODE);
    CHECK_EQ(ev.consumed, 0);
    CHECK_EQ(http_parse_eof(&p), HTTP_ESTATUS_CODE);
    http_parser_reset(&p);
    CHECK_EQ(http_parse(&p, OK200, sizeof OK200 - 1, &ev), HTTP_STATUS_LINE);
    /* An error after some events reports what was consumed before it. */
    CHECK_EQ(http_parse(&p, "A: 1\r\nB : 2\r\n", 13, &ev), HTTP_HEADER);
    CHECK_EQ(http_parse(&p, "B : 2\r\n", 7, &ev), HTTP_EHEADER_SPACE);
    CHECK(ev.name.at == NULL && ev.name.len == 0);
}

/* The end of input right after the last body byte, before the caller has
 * asked for MESSAGE_DONE, completes the message rather than cutting it. */
TEST(eof_after_the_last_body_byte_completes)
{
    static const char in[] = OK200 "Content-Length: 2\r\n\r\nhi";
    http_parser p;
    http_event ev;
    size_t at = 0;
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    while (http_parse(&p, in + at, sizeof in - 1 - at, &ev) != HTTP_BODY)
        at += ev.consumed;
    CHECK_EQ(http_parse_eof(&p), HTTP_MESSAGE_DONE);
    CHECK_EQ(http_parse(&p, NULL, 0, &ev), HTTP_MESSAGE_DONE);
}

TEST(message_done_repeats_until_reset)
{
    static const char in[] = "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n";
    http_parser p;
    http_event ev;
    size_t at = 0;
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    while (http_parse(&p, in + at, sizeof in - 1 - at, &ev) != HTTP_MESSAGE_DONE)
        at += ev.consumed;
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(http_parse(&p, in + at, sizeof in - 1 - at, &ev), HTTP_MESSAGE_DONE);
        CHECK_EQ(ev.consumed, 0);
    }
    CHECK_EQ(http_parse_eof(&p), HTTP_MESSAGE_DONE);
    http_parser_reset(&p);
    CHECK_EQ(http_parse(&p, in + at, sizeof in - 1 - at, &ev), HTTP_STATUS_LINE);
}

TEST(set_head_rules)
{
    http_parser p;
    http_event ev;
    http_parser_init(&p, HTTP_REQUEST, NULL);
    CHECK_EQ(http_parser_set_head(&p, true), HTTP_EINVAL);
    CHECK_EQ(http_parser_set_head(NULL, true), HTTP_EINVAL);
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    CHECK_EQ(http_parser_set_head(&p, true), HTTP_OK);
    CHECK(p.head);
    CHECK_EQ(http_parse(&p, OK200, sizeof OK200 - 1, &ev), HTTP_STATUS_LINE);
    CHECK_EQ(http_parser_set_head(&p, false), HTTP_OK); /* still in time */
    CHECK_EQ(http_parse(&p, "\r\n", 2, &ev), HTTP_HEADERS_DONE);
    CHECK_EQ(p.framing, HTTP_FRAMING_EOF);
    CHECK_EQ(http_parser_set_head(&p, true), HTTP_EINVAL); /* too late */
    http_parser_set_head(&p, true);
    http_parser_reset(&p);
    CHECK(!p.head); /* reset forgets it: each request says again */
}

TEST(strerror_names_every_result)
{
    static const struct {
        int code;
        const char *text;
    } table[] = {
        {HTTP_OK, "ok"},
        {HTTP_NEED_MORE, "need more input"},
        {HTTP_STATUS_LINE, "status line"},
        {HTTP_REQUEST_LINE, "request line"},
        {HTTP_HEADER, "header"},
        {HTTP_HEADERS_DONE, "end of headers"},
        {HTTP_BODY, "body"},
        {HTTP_TRAILER, "trailer"},
        {HTTP_MESSAGE_DONE, "end of message"},
        {HTTP_CLOSED, "connection closed between messages"},
        {HTTP_EINVAL, "invalid argument"},
        {HTTP_ESTATUS_LINE, "malformed status line"},
        {HTTP_EREQUEST_LINE, "malformed request line"},
        {HTTP_EVERSION, "unsupported HTTP version"},
        {HTTP_ESTATUS_CODE, "invalid status code"},
        {HTTP_EBARE_LF, "line ends in LF without CR"},
        {HTTP_EHEADER_NAME, "invalid header name"},
        {HTTP_EHEADER_SPACE, "whitespace in header name"},
        {HTTP_ENO_COLON, "missing colon in header"},
        {HTTP_EHEADER_VALUE, "invalid header value"},
        {HTTP_EOBS_FOLD, "obsolete line folding in header"},
        {HTTP_ECONTENT_LENGTH, "invalid Content-Length"},
        {HTTP_ECL_CONFLICT, "conflicting Content-Length values"},
        {HTTP_ECL_AND_TE, "conflicting Content-Length and Transfer-Encoding"},
        {HTTP_ETRANSFER_ENCODING, "unsupported Transfer-Encoding"},
        {HTTP_ECHUNK_SIZE, "invalid chunk size"},
        {HTTP_ECHUNK_END, "missing CRLF after chunk data"},
        {HTTP_EEOF, "unexpected end of message"},
        {HTTP_ESTART_TOO_LONG, "start line too long"},
        {HTTP_EHEADER_TOO_LONG, "header line too long"},
        {HTTP_ETOO_MANY_HEADERS, "too many headers"},
        {HTTP_EHEADERS_TOO_LARGE, "headers too large"},
        {HTTP_ECHUNK_DIGITS, "chunk size has too many digits"},
        {HTTP_ECHUNK_LINE_TOO_LONG, "chunk-size line too long"},
        {HTTP_EBODY_TOO_LARGE, "body too large"},
        {-26, "unknown result"},
        {10, "unknown result"},
    };
    for (size_t i = 0; i < TAAL_COUNT(table); i++)
        CHECK_STR(http_strerror(table[i].code), table[i].text);
}

TEST(error_status_for_a_server)
{
    CHECK_EQ(http_error_status(HTTP_EREQUEST_LINE), 400);
    CHECK_EQ(http_error_status(HTTP_ECL_AND_TE), 400);
    CHECK_EQ(http_error_status(HTTP_EEOF), 400);
    CHECK_EQ(http_error_status(HTTP_EBODY_TOO_LARGE), 413);
    CHECK_EQ(http_error_status(HTTP_ESTART_TOO_LONG), 414);
    CHECK_EQ(http_error_status(HTTP_EHEADER_TOO_LONG), 431);
    CHECK_EQ(http_error_status(HTTP_ETOO_MANY_HEADERS), 431);
    CHECK_EQ(http_error_status(HTTP_EHEADERS_TOO_LARGE), 431);
    CHECK_EQ(http_error_status(HTTP_ETRANSFER_ENCODING), 501);
    CHECK_EQ(http_error_status(HTTP_EVERSION), 505);
}

TEST(span_is_ignores_ascii_case_only)
{
    http_span s = {"Content-Length", 14};
    CHECK(http_span_is(s, "content-length"));
    CHECK(http_span_is(s, "CONTENT-LENGTH"));
    CHECK(!http_span_is(s, "content-lengthx"));
    CHECK(!http_span_is(s, "content-lengt"));
    CHECK(!http_span_is(s, NULL));
    http_span e = {NULL, 0};
    CHECK(http_span_is(e, ""));
    CHECK(!http_span_is(e, "a"));
    http_span odd = {"\xc3\xa9", 2};
    CHECK(!http_span_is(odd, "\xc3\x89")); /* no Unicode folding */
    http_span bad = {NULL, 3};
    CHECK(!http_span_is(bad, "abc"));
}

/* ---- the table ---------------------------------------------------------- */

static const taal_test tests[] = {
    TEST_ENTRY(status_line_forms),
    TEST_ENTRY(malformed_status_lines),
    TEST_ENTRY(status_codes_not_three_digits),
    TEST_ENTRY(header_names_ignore_case_and_values_lose_whitespace),
    TEST_ENTRY(malformed_header_names),
    TEST_ENTRY(malformed_header_values),
    TEST_ENTRY(obs_fold_is_rejected),
    TEST_ENTRY(bare_lf_is_rejected_everywhere),
    TEST_ENTRY(content_length_body),
    TEST_ENTRY(content_length_zero_and_repeated),
    TEST_ENTRY(invalid_content_lengths),
    TEST_ENTRY(chunked_body),
    TEST_ENTRY(chunked_trailers),
    TEST_ENTRY(invalid_chunk_sizes),
    TEST_ENTRY(chunk_data_must_end_in_crlf),
    TEST_ENTRY(malformed_trailers),
    TEST_ENTRY(transfer_encoding_must_be_exactly_chunked),
    TEST_ENTRY(content_length_with_transfer_encoding_is_smuggling),
    TEST_ENTRY(read_to_close_body),
    TEST_ENTRY(responses_without_a_body),
    TEST_ENTRY(responses_to_head_have_no_body),
    TEST_ENTRY(keep_alive_rules),
    TEST_ENTRY(two_pipelined_responses_in_one_buffer),
    TEST_ENTRY(pipelined_consumed_counts),
    TEST_ENTRY(request_without_body),
    TEST_ENTRY(request_with_content_length),
    TEST_ENTRY(request_with_chunked_body),
    TEST_ENTRY(empty_lines_before_a_request_are_skipped),
    TEST_ENTRY(empty_lines_before_a_request_are_bounded),
    TEST_ENTRY(pipelined_requests_and_keep_alive),
    TEST_ENTRY(malformed_request_lines),
    TEST_ENTRY(malformed_request_framing),
    TEST_ENTRY(eof_in_every_state_of_a_content_length_response),
    TEST_ENTRY(eof_in_every_state_of_a_chunked_response),
    TEST_ENTRY(eof_in_every_state_of_a_read_to_close_response),
    TEST_ENTRY(eof_in_every_state_of_a_request),
    TEST_ENTRY(eof_messages_are_exact),
    TEST_ENTRY(bound_start_line),
    TEST_ENTRY(bound_start_line_of_a_request),
    TEST_ENTRY(bound_header_line),
    TEST_ENTRY(bound_header_count),
    TEST_ENTRY(bound_header_bytes),
    TEST_ENTRY(bound_trailers_share_the_header_bounds),
    TEST_ENTRY(bound_chunk_digits),
    TEST_ENTRY(bound_chunk_digits_at_64_bits),
    TEST_ENTRY(bound_chunk_line),
    TEST_ENTRY(bound_body_by_content_length),
    TEST_ENTRY(bound_body_by_chunks),
    TEST_ENTRY(bound_body_read_to_close),
    TEST_ENTRY(bound_default_line_limits),
    TEST_ENTRY(min_buffer_is_enough_and_tight),
    TEST_ENTRY(limits_defaults_and_validation),
    TEST_ENTRY(spans_point_into_the_input),
    TEST_ENTRY(fields_after_headers_done),
    TEST_ENTRY(a_line_is_kept_until_its_end_arrives),
    TEST_ENTRY(argument_errors),
    TEST_ENTRY(errors_stick_until_reset),
    TEST_ENTRY(eof_after_the_last_body_byte_completes),
    TEST_ENTRY(message_done_repeats_until_reset),
    TEST_ENTRY(set_head_rules),
    TEST_ENTRY(strerror_names_every_result),
    TEST_ENTRY(error_status_for_a_server),
    TEST_ENTRY(span_is_ignores_ascii_case_only),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
