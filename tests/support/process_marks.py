"""Finding the processes a test started by a mark in their environment, for the Python tests
(the C++ tests have processes.hpp)."""
import os


def marked_pids(marker):
    """The PIDs of live processes whose environment holds the bytes `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read():
                    found.append(int(entry))
        except OSError:
            pass  # gone, or not ours to read
    return found
