"""gen.py -- writes small asyncio programs in the difftest language.

Seeded and deterministic: the same (seed, index, family) gives the same
program, on any machine and any Python 3. Each family leans on a
part of the runtime:

    cancel     tasks cancelled asleep, awaiting, cleaning up, swallowing it
    timeout    timeout scopes, nested ones, wait_for, deadlines racing work
    taskgroup  task groups whose children fail, are cancelled, spawn more
    sync       semaphore, lock, event and queue, with waiters cancelled
    mixed      all of the above, with futures, gather, wait and shield

    python3 gen.py --seed 7 --count 3 [--family cancel]

The generator keeps nothing out: a program that hits a known issue of taal
(difftest.py's KNOWN) is noticed by the Python runner as it runs
(run_py.py), and left out there.
"""

import argparse
import random

FAMILIES = ("cancel", "timeout", "taskgroup", "sync", "mixed")

DELAYS = (0, 0.25, 0.5, 0.5, 1, 1, 1.5, 2)
TIMEOUTS = (0.25, 0.5, 1, 1.5, 2.5)

# Weights of the ops of a body, per family.
WEIGHTS = {
    "cancel": dict(sleep=6, await_=4, cancel=5, yield_=1, print=1, gather=1, timeout=1,
                   shield=1, fail=1, future=1, wait=1),
    "timeout": dict(sleep=5, await_=2, cancel=1, timeout=5, waitfor=4, print=1, fail=1,
                    future=1, shield=1),
    "taskgroup": dict(sleep=5, await_=2, cancel=2, tg=5, fail=3, timeout=1, print=1),
    "sync": dict(sleep=4, with_=5, event=3, queue=5, cancel=3, await_=1, timeout=1,
                 print=1),
    "mixed": dict(sleep=5, await_=3, cancel=3, gather=2, wait=2, waitfor=2, shield=1,
                  timeout=2, tg=2, with_=2, event=2, queue=2, future=2, fail=2, yield_=1,
                  print=1),
}


class Gen:
    def __init__(self, rng, family):
        self.r = rng
        self.family = family
        self.weights = WEIGHTS[family]
        self.tasks = []  # task names, A, B, ...
        self.prims = {"sem": [], "lock": [], "event": [], "queue": [], "future": []}
        self.prints = 0

    def delay(self):
        if self.r.random() < 0.05:
            return "-0.25"
        return fmt(self.r.choice(DELAYS))

    def timeout(self):
        if self.r.random() < 0.08:
            return "0"
        return fmt(self.r.choice(TIMEOUTS))

    def program(self):
        r = self.r
        n = r.randint(2, 5)
        self.tasks = [chr(ord("A") + i) for i in range(n)]
        decls = []
        if self.family in ("sync", "mixed"):
            for kind in ("sem", "lock", "event", "queue"):
                if self.family == "sync" or r.random() < 0.5:
                    name = kind[0] + "1"
                    self.prims[kind].append(name)
                    if kind == "sem":
                        decls.append(f"sem {name} {r.randint(1, 2)}")
                    elif kind == "queue":
                        decls.append(f"queue {name} {r.randint(0, 2)}")
                    else:
                        decls.append(f"{kind} {name}")
        if self.family in ("cancel", "timeout", "mixed"):
            for i in range(r.randint(0, 2)):
                self.prims["future"].append(f"f{i + 1}")
                decls.append(f"future f{i + 1}")
        # Who spawns whom: main, an earlier task, or a task group in either.
        spawner = {}
        for i, task in enumerate(self.tasks):
            parent = "main" if i == 0 or r.random() < 0.65 else r.choice(self.tasks[:i])
            in_group = self.family in ("taskgroup", "mixed") and r.random() < (
                0.7 if self.family == "taskgroup" else 0.25)
            spawner[task] = (parent, in_group)
        out = decls[:]
        for body in ["main"] + self.tasks:
            plain = [t for t in self.tasks if spawner[t] == (body, False)]
            grouped = [t for t in self.tasks if spawner[t] == (body, True)]
            out.append("main" if body == "main" else f"task {body}")
            out.extend(self.body(body, plain, grouped))
            out.append("end")
        return "\n".join(out) + "\n"

    def body(self, me, plain, grouped):
        r = self.r
        lines = []
        for child in plain:
            lines.append(f"spawn {child}")
        length = r.randint(2, 7 if me == "main" else 5)
        ops = [self.op(me, 1) for _ in range(length)]
        if grouped:
            group = ["tg"] + [f"  spawn {c}" for c in grouped]
            group += ["  " + l for op in [self.op(me, 2) for _ in range(r.randint(0, 3))]
                      for l in op]
            group.append("end")
            if r.random() < 0.4:
                group[0] = "try tg"
            ops.insert(r.randint(0, len(ops)), group)
        # The spawns come first, in a random order; then the ops.
        r.shuffle(lines)
        for op in ops:
            lines.extend(op)
        if me != "main" and r.random() < 0.6:
            lines.append(f"return {r.randint(1, 9)}")
        return ["  " + l for l in lines]

    def later(self, me):
        """The tasks `me` may wait for: those after it (main: all), so that
        no two tasks wait for each other. (A cycle makes CPython's cancel()
        recurse until RecursionError: each cancels what the other awaits.)"""
        if me == "main":
            return list(self.tasks)
        return self.tasks[self.tasks.index(me) + 1:]

    def other(self, me):
        names = self.later(me)
        return self.r.choice(names) if names else None

    def awaitable(self, me):
        futures = self.prims["future"]
        if futures and self.r.random() < 0.3:
            return self.r.choice(futures)
        return self.other(me)

    def op(self, me, depth):
        """One op, as a list of lines (a block is several)."""
        r = self.r
        kinds = list(self.weights)
        while True:
            kind = r.choices(kinds, [self.weights[k] for k in kinds])[0]
            lines = self.make(kind, me, depth)
            if lines:
                break
        if r.random() < 0.35 and not lines[0].startswith(("print", "spawn", "set", "clear",
                                                          "resolve", "reject", "cancel")):
            lines[0] = "try " + lines[0]
        return lines

    def block(self, head, me, depth):
        inner = [self.op(me, depth + 1) for _ in range(self.r.randint(1, 3))]
        return [head] + ["  " + l for op in inner for l in op] + ["end"]

    def make(self, kind, me, depth):
        r = self.r
        if kind == "sleep":
            return [f"sleep {self.delay()}"]
        if kind == "yield_":
            return ["sleep 0"]
        if kind == "print":
            self.prints += 1
            return [f"print p{self.prints}"]
        if kind == "fail":
            return [f"fail {r.randint(1, 9)}"]
        if kind == "await_":
            target = self.awaitable(me)
            return target and [f"await {target}"]
        if kind == "cancel":
            if r.random() < 0.05 and me != "main":
                return ["cancel main"]
            target = self.r.choice([t for t in self.tasks if t != me] + self.prims["future"])
            return [f"cancel {target}"]
        if kind == "shield":
            target = self.awaitable(me)
            return target and [f"shield {target}"]
        if kind == "waitfor":
            target = self.awaitable(me)
            return target and [f"waitfor {self.timeout()} {target}"]
        if kind in ("gather", "wait"):
            pool = self.later(me) + self.prims["future"]
            if len(pool) < 1:
                return None
            picked = r.sample(pool, r.randint(1, min(3, len(pool))))
            if kind == "gather":
                return [("gather! " if r.random() < 0.4 else "gather ") + " ".join(picked)]
            modes = ["all", "first", "exc"]
            timeout = "none" if r.random() < 0.5 else self.timeout()
            return [f"wait {r.choice(modes)} {timeout} " + " ".join(picked)]
        if kind == "future":
            if not self.prims["future"]:
                return None
            f = r.choice(self.prims["future"])
            return [f"resolve {f} {r.randint(1, 9)}" if r.random() < 0.7
                    else f"reject {f} {r.randint(1, 9)}"]
        if depth >= 3 and kind in ("timeout", "tg", "with_"):
            return None
        if kind == "timeout":
            return self.block(f"timeout {self.timeout()}", me, depth)
        if kind == "tg":
            # A group of its own: the children it spawns are not tasks of
            # the plan (they would need bodies); a group of the body's
            # own ops still joins, fails and cancels.
            return self.block("tg", me, depth)
        if kind == "with_":
            pool = self.prims["sem"] + self.prims["lock"]
            return pool and self.block(f"with {r.choice(pool)}", me, depth)
        if kind == "event":
            if not self.prims["event"]:
                return None
            e = self.prims["event"][0]
            return [r.choices([f"set {e}", f"clear {e}", f"waitev {e}"], [3, 1, 4])[0]]
        if kind == "queue":
            if not self.prims["queue"]:
                return None
            q = self.prims["queue"][0]
            return [f"put {q} {r.randint(1, 9)}" if r.random() < 0.5 else f"get {q}"]
        raise ValueError(kind)


def fmt(x):
    return f"{x:g}"


def generate(seed, index, family):
    """Program `index` of the run with `seed`: its text."""
    rng = random.Random(f"{seed}:{index}:{family}")
    text = Gen(rng, family).program()
    return f"# difftest seed {seed} program {index} family {family}\n" + text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--family", action="append", choices=FAMILIES)
    args = ap.parse_args()
    families = args.family or list(FAMILIES)
    for i in range(args.start, args.start + args.count):
        print(f"=== s{args.seed}-{i}")
        print(generate(args.seed, i, families[i % len(families)]), end="")


if __name__ == "__main__":
    main()
