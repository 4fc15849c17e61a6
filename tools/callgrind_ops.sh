#!/bin/sh
# callgrind_ops.sh -- instructions per operation, chapter 07 against chapter
# 08, counted by valgrind's callgrind: deterministic, so that
# docs/08_fast.md's before-and-after figures are the same on every run on
# the same compiler (times are not: see docs/benchmarks.md for those).
#
#   tools/callgrind_ops.sh [BUILD_DIR] [--cache]
#
# Builds bench/'s programs against both chapters' libraries (Release, in
# BUILD_DIR, default /tmp/taal-callgrind), then runs each scenario twice,
# at two sizes, and divides the difference by the extra operations, so
# that setting up, the first (cold) batch and closing are left out:
#   sleep(0)         bench_switch M 10, M = 20000 and 40000
#   ping-pong        bench_switch 10 S, S = 20000 and 40000
#   spawn + gather   bench_spawn 10000 B, B = 3 and 6 batches
#   timer            bench_timers N 0.001, N = 50000 and 100000
#   semaphore round  bench_semaphore R 100 4, R = 20000 and 40000 (100 tasks,
#                    4 permits; a round is an acquire, a sleep(0), a release)
#   echo round trip  bench_echo R 1, R = 2000 and 4000 (2R round trips on
#                    one connection; client and server processes summed)
#   HTTP request     bench_http Q, Q = 1600 and 3200 (2Q requests: one at
#                    a time, then 16 in flight; client and server in one loop)
# and then, run natively (no valgrind), the bytes a pending task costs by
# bench_memory (the growth of the peak RSS over 10^5 tasks), with a bare
# 56-byte frame and with 32 bytes of the frame's own.
# With --cache, the timer scenario also runs at 10^6 timers under the cache
# simulator, and prints the data-cache misses per timer (first level, and
# last level: the ones that go to memory). Needs cmake and valgrind.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-/tmp/taal-callgrind}
cache=no
[ "${2:-}" = "--cache" ] && cache=yes
mkdir -p "$build/src"
cat > "$build/src/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(taal_callgrind_ops LANGUAGES C)
# Added as subdirectories, the chapters build their libraries only: no
# programs, no unit tests (their CMakeLists.txt, TAAL_CHNN_EXAMPLES/_TESTS).
add_subdirectory($root/chapters/07_io ch07)
add_subdirectory($root/chapters/08_fast ch08)
foreach(ch ch07 ch08)
  foreach(s spawn switch timers semaphore memory echo http)
    add_executable(\${s}_\${ch} $root/bench/\${s}.c)
    target_link_libraries(\${s}_\${ch} PRIVATE taal_\${ch})
  endforeach()
endforeach()
CMAKE
cmake -S "$build/src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target spawn_ch07 spawn_ch08 switch_ch07 switch_ch08 \
      timers_ch07 timers_ch08 semaphore_ch07 semaphore_ch08 memory_ch07 memory_ch08 \
      echo_ch07 echo_ch08 http_ch07 http_ch08 >/dev/null

# ir PROGRAM ARGS...: the instructions the program ran (with the processes
# it forked: bench_echo's server).
ir() {
    TAAL_CLOCK= valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s }'
}
# per N PROGRAM "ARGS1" "ARGS2": (ir ARGS2 - ir ARGS1) / N
per() {
    n=$1 p=$2
    a=$(ir "$p" $3)
    b=$(ir "$p" $4)
    echo $(((b - a) / n))
}
printf '%-36s %10s %10s\n' "instructions per operation" "chapter 07" "chapter 08"
row() {
    printf '%-36s %10s %10s\n' "$1" "$(per "$2" "$build/$3_ch07" "$4" "$5")" \
           "$(per "$2" "$build/$3_ch08" "$4" "$5")"
}
row "sleep(0), one task" 20000 switch "20000 10" "40000 10"
row "ping-pong switch through futures" 20000 switch "10 20000" "10 40000"
row "warm spawn + gather, per task" 30000 spawn "10000 3" "10000 6"
row "timer (task, sleep, fire), per timer" 50000 timers "50000 0.001" "100000 0.001"
row "semaphore acquire + release round" 20000 semaphore "20000 100 4" "40000 100 4"
row "echo round trip, 1 connection" 4000 echo "2000 1" "4000 1"
row "HTTP request (half 1, half 16 in flight)" 3200 http "1600" "3200"
# mem PROGRAM EXTRA: bytes per pending task, 10^5 tasks
mem() {
    TAAL_CLOCK= "$1" 100000 "$2" | sed -n 's/^bytes_per_pending_task \([0-9.]*\).*/\1/p'
}
printf '%-36s %10s %10s\n' "bytes per pending task (RSS)" "chapter 07" "chapter 08"
for extra in 0 32; do
    printf '%-36s %10s %10s\n' "frame of $((56 + extra)) bytes" "$(mem "$build/memory_ch07" $extra)" \
           "$(mem "$build/memory_ch08" $extra)"
done
if [ $cache = yes ]; then
    for ch in ch07 ch08; do
        out=$build/cache_$ch.out
        TAAL_CLOCK= valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$out" \
            "$build/timers_$ch" 1000000 0.001 >/dev/null 2>&1
        # Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
        callgrind_annotate "$out" | sed -n 's/ *(100.0%)//g; s/,//g; s/ *PROGRAM TOTALS//p' |
            awk -v ch=$ch '{ printf "%s, 10^6 timers: per timer %.0f instructions, %.1f D1 misses, %.2f LL misses\n", ch, $1 / 1e6, ($5 + $6) / 1e6, ($8 + $9) / 1e6 }'
    done
fi
