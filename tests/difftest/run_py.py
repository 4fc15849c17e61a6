"""run_py.py -- the CPython side of the differential test.

Reads programs in the difftest language (README.md, "The language") and
runs each with asyncio on a loop whose clock is virtual: no real time
passes, the clock jumps to the next timer when nothing is ready, exactly as
taal's TAAL_CLOCK=virtual does. It prints what the program prints, in the
format taalint (the C side) prints, so that the two can be compared line by
line.

    python3 run_py.py PROGRAM...        one or more program files
    python3 run_py.py --batch FILE      programs separated by "=== name" lines

Two kinds of switch change what the runner does (difftest.py passes them):

- documented divergences (--documented NAME, all on by default): behaviours
  where taal differs from CPython on purpose, each named after the tutorial
  section that says so. The runner either makes asyncio behave as taal
  documents (virtual_clock, taskgroup_cancel_order) or notices that a
  program depends on the difference (queue_newcomer) and says so with a
  "~ documented NAME" line, which makes the driver leave the program out.
- known issues (--known NAME): runtime bugs being fixed; the runner marks a
  program that depends on one with "~ known NAME", and the driver leaves it
  out while the item is in its --avoid list.
"""

import asyncio
import heapq
import selectors
import sys

# ---------------------------------------------------------------------------
# The language: a program is declarations and bodies; a body is a list of
# ops, a block op holds the ops up to its `end`.


class Op:
    """One line of a body: its line number, its words, whether a failure
    is caught (`try` prefix), and for a block, the ops inside and the line
    of its `end`."""

    __slots__ = ("line", "name", "args", "catch", "body", "end_line")

    def __init__(self, line, name, args, catch):
        self.line, self.name, self.args, self.catch = line, name, args, catch
        self.body, self.end_line = None, None


BLOCKS = {"timeout", "tg", "with"}
KINDS = {"sem", "lock", "event", "queue", "future"}


class Program:
    def __init__(self, name, text):
        self.name = name
        self.decls = []  # (kind, name, number) in order
        self.bodies = {}  # name -> [Op]
        self.order = []  # body names in order, "main" included
        self._parse(text.splitlines())

    def _parse(self, lines):
        stack = None  # the open body's block stack: [list of ops, ...]
        opened = []  # the block ops matching stack[1:]
        for number, raw in enumerate(lines, 1):
            words = raw.split()
            if not words or words[0].startswith("#"):
                continue
            if stack is None:
                if words[0] in KINDS:
                    arg = int(words[2]) if len(words) > 2 else 0
                    self.decls.append((words[0], words[1], arg))
                elif words[0] in ("task", "main"):
                    name = "main" if words[0] == "main" else words[1]
                    stack, opened = [[]], []
                    self.bodies[name] = stack[0]
                    self.order.append(name)
                else:
                    raise ValueError(f"line {number}: unknown declaration {raw!r}")
                continue
            if words[0] == "end":
                if opened:
                    op = opened.pop()
                    op.end_line = number
                    stack.pop()
                else:
                    stack = None
                continue
            catch = words[0] == "try"
            if catch:
                words = words[1:]
            op = Op(number, words[0], words[1:], catch)
            stack[-1].append(op)
            if op.name in BLOCKS:
                op.body = []
                stack.append(op.body)
                opened.append(op)
        if stack is not None:
            raise ValueError("a body is not closed with end")


def read_batch(text):
    """Splits a batch into (name, text) pairs at its "=== name" lines."""
    programs, name, lines = [], None, []
    for line in text.splitlines():
        if line.startswith("=== "):
            if name is not None:
                programs.append((name, "\n".join(lines)))
            name, lines = line[4:].strip(), []
        else:
            lines.append(line)
    if name is not None:
        programs.append((name, "\n".join(lines)))
    return programs


# ---------------------------------------------------------------------------
# The virtual clock.


class Deadlock(Exception):
    """Nothing is ready and no timer is set: asyncio would wait for ever,
    taal reports a deadlock (docs/05_cancel.md, "Where taal differs")."""


class VirtualSelector(selectors.SelectSelector):
    """A selector that never blocks: asked to wait, it moves the loop's
    clock to the earliest timer (the head of the loop's heap, which
    _run_once has just cleared of cancelled timers) and returns no events.
    Asked to wait for ever, it raises Deadlock."""

    loop = None

    def select(self, timeout=None):
        if timeout is None:
            raise Deadlock()
        if timeout > 0 and self.loop._scheduled:
            self.loop.now = max(self.loop.now, self.loop._scheduled[0]._when)
        return []


class SeqTimerHandle(asyncio.TimerHandle):
    """A timer ordered by (deadline, arming order), as taal's heap is:
    docs/02_custom_loop.md, "The virtual clock" ("Timers with the same
    deadline fire in the order they were armed ... CPython does not promise
    this")."""

    __slots__ = ("_seq",)

    def __lt__(self, other):
        return (self._when, self._seq) < (other._when, other._seq)

    def __le__(self, other):
        return (self._when, self._seq) <= (other._when, other._seq)

    def __gt__(self, other):
        return (self._when, self._seq) > (other._when, other._seq)

    def __ge__(self, other):
        return (self._when, self._seq) >= (other._when, other._seq)


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self, stable_ties):
        selector = VirtualSelector()
        super().__init__(selector)
        selector.loop = self
        self.now = 0.0
        self._stable_ties = stable_ties
        self._seq = 0
        # Timers due within this of now run in this pass; the virtual clock
        # lands on deadlines exactly, so any tiny value will do.
        self._clock_resolution = 1e-9

    def time(self):
        return self.now

    def call_at(self, when, callback, *args, context=None):
        if not self._stable_ties:
            return super().call_at(when, callback, *args, context=context)
        # BaseEventLoop.call_at, with a timer that keeps arming order.
        self._check_closed()
        timer = SeqTimerHandle(when, callback, args, self, context)
        self._seq += 1
        # A planted defect (difftest.py --plant lifo_ties) arms equal
        # deadlines last-armed first: the comparison must then fail.
        timer._seq = -self._seq if self._stable_ties == "lifo" else self._seq
        heapq.heappush(self._scheduled, timer)
        timer._scheduled = True
        return timer


# ---------------------------------------------------------------------------
# Outcomes, printed the same way by taalint.


class UserError(Exception):
    """`fail N`: taal's TAAL_EUSER - N."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


def describe(exc, members=False):
    """The outcome of a failure, as both sides print it; with `members`, a
    task group's errors one by one (the line of the group's `end`)."""
    if isinstance(exc, BaseExceptionGroup) and members:
        return "group [" + ", ".join(describe(e) for e in exc.exceptions) + "]"
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, UserError):
        return f"error {exc.code}"
    if isinstance(exc, BaseExceptionGroup):
        return "group"
    if isinstance(exc, asyncio.InvalidStateError):
        return "invalid"
    return f"exception {type(exc).__name__}"


def value_text(value):
    return "ok" if value is None else f"ok {value}"


class OrderedTaskGroup(asyncio.TaskGroup):
    """A task group that cancels its children in creation order, as taal's
    does (docs/05_cancel.md, "Where taal differs": "A task group cancels
    its children in creation order; asyncio in its set's order")."""

    def __init__(self, ordered):
        super().__init__()
        self._ordered = ordered
        self._children = []

    def create_task(self, coro, *, name=None, context=None):
        task = super().create_task(coro, name=name, context=context)
        self._children.append(task)
        return task

    def _abort(self):
        if not self._ordered:
            return super()._abort()
        self._aborting = True
        for task in self._children:
            if task in self._tasks and not task.done():
                task.cancel()


# ---------------------------------------------------------------------------
# The interpreter.


class Runner:
    def __init__(self, program, documented, known, out):
        self.p = program
        self.documented = documented  # names of the documented divergences handled
        self.known = known  # names of the known issues to watch for
        self.out = out
        self.loop = VirtualLoop(
            "lifo" if "lifo_ties" in documented else "virtual_clock" in documented)
        self.loop.set_exception_handler(lambda loop, context: None)
        self.objects = {}  # name -> future, primitive, or task once spawned
        self.kinds = {}
        self.spawned = []  # tasks in spawn order (main first)
        self.gone = set()  # task group children after their group ended
        self.waiting = {}  # (queue name, op) -> tasks waiting in a get/put
        self.flags = []

    # -- printing and flags --------------------------------------------------

    def say(self, task, line, text):
        self.out.append(f"{self.loop.now:.2f} {task} {line}: {text}")

    def flag(self, kind, name):
        """The program depends on a difference: say so once."""
        if (kind == "documented" and name in self.documented) or (
            kind == "known" and name in self.known
        ):
            text = f"~ {kind} {name}"
            if text not in self.flags:
                self.flags.append(text)

    def check_312(self, stopped):
        """docs/05_cancel.md, "Where taal differs": uncancel(), TaskGroup
        and the timeout follow 3.13 where 3.12 differs (a request withdrawn
        at 0; an outside cancellation not lost). On 3.12, a scope or group
        that cancelled something, or that ends with a cancellation pending,
        may be where the two differ."""
        if sys.version_info < (3, 13) and (stopped or asyncio.current_task().cancelling()):
            self.flag("documented", "follows_313")

    # -- running a program ---------------------------------------------------

    def run(self):
        for kind, name, arg in self.p.decls:
            self.kinds[name] = kind
            if kind == "sem":
                obj = asyncio.Semaphore(arg)
            elif kind == "lock":
                obj = asyncio.Lock()
            elif kind == "event":
                obj = asyncio.Event()
            elif kind == "queue":
                obj = asyncio.Queue(arg)
            else:
                obj = self.loop.create_future()
            self.objects[name] = obj
        asyncio.set_event_loop(self.loop)
        try:
            main = self.loop.create_task(self.task_main("main"), name="main")
            self.objects["main"] = main
            self.spawned.append(main)
            try:
                self.loop.run_until_complete(main)
            except Deadlock:
                self.out.append("deadlock")
            except BaseException:
                pass  # main's end line says how it ended
            # asyncio.run's ending, in spawn order: cancel what is left,
            # then run until it has finished.
            left = [t for t in self.spawned if not t.done()]
            if left:
                self.out.append("shutdown")
                for task in left:
                    task.cancel()
                try:
                    self.loop.run_until_complete(
                        asyncio.gather(*left, return_exceptions=True)
                    )
                except Deadlock:
                    self.out.append("deadlock")
        finally:
            asyncio.set_event_loop(None)
            # Whatever still waits (a deadlock in the shutdown) is dropped
            # with the loop; asyncio's complaints about it are not compared.
            self.loop.close()
        return self.flags + self.out

    async def task_main(self, name):
        try:
            result = await self.run_body(name, self.p.bodies[name], [])
        except GeneratorExit:
            raise  # dropped with the loop, still pending: nothing to print
        except BaseException as exc:
            if self.loop.is_closed():
                raise  # its coroutine closed with the loop: nothing to print
            self.say(name, "end", describe(exc))
            raise
        self.say(name, "end", value_text(result))
        return result

    async def run_body(self, task, ops, groups):
        """Runs `ops`; returns a `return` op's value, or None."""
        for op in ops:
            if op.name == "return":
                return int(op.args[0])
            try:
                text = await self.run_op(task, op, groups)
                if text is not None:
                    self.say(task, op.end_line or op.line, text)
            except (GeneratorExit, Deadlock):
                raise
            except BaseException as exc:
                if self.loop.is_closed():
                    raise
                self.say(task, op.end_line or op.line, describe(exc, op.name == "tg"))
                if not op.catch:
                    raise
        return None

    def lookup(self, name):
        if name in self.gone:
            return None, "gone"
        obj = self.objects.get(name)
        if obj is None or self.kinds.get(name) not in (None, "future"):
            return None, "nosuch"
        return obj, None

    def lookup_all(self, names):
        objs = []
        for name in names:
            obj, why = self.lookup(name)
            if obj is None:
                return None, why
            objs.append(obj)
        return objs, None

    async def run_op(self, task, op, groups):
        """Runs one op; returns the text to print for it (None: nothing),
        or raises what it failed with."""
        name, args = op.name, op.args
        if name == "print":
            return " ".join(args)
        if name == "sleep":
            await asyncio.sleep(float(args[0]))
            return "ok"
        if name == "fail":
            raise UserError(int(args[0]))
        if name == "spawn":
            target = args[0]
            if target in self.objects or target not in self.p.bodies:
                return "invalid"
            coro = self.task_main(target)
            if groups:
                try:
                    child = groups[-1].create_task(coro, name=target)
                except RuntimeError:
                    return "invalid"
            else:
                child = self.loop.create_task(coro, name=target)
            self.objects[target] = child
            self.spawned.append(child)
            return "ok"
        if name == "await":
            obj, why = self.lookup(args[0])
            return why or value_text(await obj)
        if name == "cancel":
            obj, why = self.lookup(args[0])
            return why or str(obj.cancel())
        if name in ("gather", "gather!"):
            objs, why = self.lookup_all(args)
            if why:
                return why
            results = await asyncio.gather(*objs, return_exceptions=name == "gather!")
            return "ok [" + ", ".join(
                describe(r) if isinstance(r, BaseException) else str(r) for r in results
            ) + "]"
        if name == "wait":
            return await self.op_wait(args)
        if name == "waitfor":
            obj, why = self.lookup(args[1])
            return why or value_text(await asyncio.wait_for(obj, float(args[0])))
        if name == "shield":
            obj, why = self.lookup(args[0])
            return why or value_text(await asyncio.shield(obj))
        if name == "timeout":
            scope = asyncio.timeout(float(args[0]))
            try:
                async with scope:
                    await self.run_body(task, op.body, groups)
            finally:
                self.check_312(scope.expired())
            return "ok"
        if name == "tg":
            group = OrderedTaskGroup("taskgroup_cancel_order" in self.documented)
            try:
                async with group:
                    await self.run_body(task, op.body, groups + [group])
            finally:
                for child in group._children:
                    self.gone.add(child.get_name())
                self.check_312(group._aborting)
            return "ok"
        if name == "with":
            return await self.op_with(task, op, groups)
        if name in ("set", "clear"):
            event = self.objects[args[0]]
            event.set() if name == "set" else event.clear()
            return "ok"
        if name == "waitev":
            await self.objects[args[0]].wait()
            return "ok"
        if name in ("put", "get"):
            return await self.op_queue(name, args)
        if name in ("resolve", "reject"):
            future = self.objects[args[0]]
            if future.done():
                return "invalid"
            if name == "resolve":
                future.set_result(int(args[1]))
            else:
                future.set_exception(UserError(int(args[1])))
            return "ok"
        raise ValueError(f"line {op.line}: unknown op {name!r}")

    async def op_wait(self, args):
        mode, timeout, names = args[0], args[1], args[2:]
        objs, why = self.lookup_all(names)
        if why:
            return why
        when = {
            "all": asyncio.ALL_COMPLETED,
            "first": asyncio.FIRST_COMPLETED,
            "exc": asyncio.FIRST_EXCEPTION,
        }[mode]
        # Awaited in this task, not wrapped in one of its own: a task in
        # between would take one more iteration to pass a cancel on.
        done, pending = await asyncio.wait(
            objs, timeout=None if timeout == "none" else float(timeout), return_when=when)
        return (
            "done " + (",".join(n for n, o in zip(names, objs) if o in done) or "-")
            + " pending " + (",".join(n for n, o in zip(names, objs) if o in pending) or "-")
        )

    async def op_with(self, task, op, groups):
        name = op.args[0]
        prim = self.objects[name]
        await prim.acquire()
        self.say(task, op.line, "acquired")
        try:
            await self.run_body(task, op.body, groups)
        finally:
            # docs/05_cancel.md, "Where taal differs" (found by this test):
            # asyncio's Lock.release() wakes only the head of its line; if
            # that waiter was cancelled (its task has not run yet to leave
            # the line), nobody is woken until it runs, one iteration later.
            # taal's cancelled waiter left the line at once, and the lock
            # goes to the next straight away.
            waiters = getattr(prim, "_waiters", None)
            if self.kinds[name] == "lock" and waiters and next(iter(waiters)).done():
                self.flag("documented", "lock_cancelled_head")
            prim.release()
        return "ok"

    async def op_queue(self, name, args):
        queue = self.objects[args[0]]
        me = asyncio.current_task()
        line = self.waiting.setdefault((args[0], name), [])
        # docs/03_semaphore.md, "asyncio's Queue lets a newcomer take the
        # item": with getters (putters) waiting, a newcomer takes the item
        # (the slot) in asyncio, while taal has handed it to the first.
        if line and (not queue.empty() if name == "get" else not queue.full()):
            self.flag("documented", "queue_newcomer")
        line.append(me)
        try:
            if name == "put":
                await queue.put(int(args[1]))
                return "ok"
            return f"ok {await queue.get()}"
        finally:
            line.remove(me)


def _ignore_unraisable(unraisable):
    """A task still pending when its loop closed (a deadlock the shutdown
    could not end) has its coroutine closed when it is collected, on a
    closed loop, and asyncio complains to stderr. taal reports it to a
    report function instead; neither side's complaint is compared."""


def run_program(program, documented, known):
    """Runs one program; returns its output lines (flags first)."""
    sys.unraisablehook = _ignore_unraisable
    return Runner(program, documented, known, []).run()


DOCUMENTED = ("virtual_clock", "queue_newcomer", "taskgroup_cancel_order", "deadlock",
              "follows_313", "lock_cancelled_head")


def main(argv):
    documented, known, files, batch = set(DOCUMENTED), set(), [], None
    args = iter(argv)
    for arg in args:
        if arg == "--batch":
            batch = next(args)
        elif arg == "--known":
            known.add(next(args))
        elif arg == "--no-documented":
            documented.discard(next(args))
        else:
            files.append(arg)
    programs = []
    if batch:
        with open(batch) as f:
            programs = read_batch(f.read())
    for path in files:
        with open(path) as f:
            programs.append((path, f.read()))
    for name, text in programs:
        print(f"=== {name}")
        for line in run_program(Program(name, text), documented, known):
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
