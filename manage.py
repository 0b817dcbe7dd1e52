#!/usr/bin/env python
import sys


def main():
    from concord.cli import configure  # the settings module, and a quiet log unless -v 2

    configure(sys.argv[1:])
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
