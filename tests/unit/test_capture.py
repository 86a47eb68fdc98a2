"""The lock of the embedded AWS: handed over first come, first served."""

import threading
import time

from devstack.capture import FairLock


def test_waiters_get_the_lock_in_the_order_they_came():
    lock, order = FairLock(), []
    lock.acquire()

    def take(name):
        with lock:
            order.append(name)

    threads = []
    for name in ("first", "second", "third"):
        threads.append(threading.Thread(target=take, args=(name,)))
        threads[-1].start()
        time.sleep(0.05)  # each waits before the next comes
    lock.release()
    for thread in threads:
        thread.join(5)
    assert order == ["first", "second", "third"]


def test_a_thread_that_takes_the_lock_back_at_once_waits_its_turn():
    lock, taken = FairLock(), []
    stop = threading.Event()

    def greedy():
        while not stop.is_set():
            with lock:
                time.sleep(0.001)

    runner = threading.Thread(target=greedy)
    runner.start()
    started = time.perf_counter()
    for _ in range(20):
        with lock:
            taken.append(time.perf_counter())
    stop.set()
    runner.join(5)
    assert time.perf_counter() - started < 2  # a waiter is never starved by the greedy thread
