"""Scripts that gpudoctor runs in a separate process, never imports.

Every module here is executed as a file by another interpreter (the TARGET
Python for the framework runner, any Python for the driver check). They use
only the standard library and the framework under test, and must keep working
on Python 3.8. Their file names start with ``gdsmoke_`` because the script's
directory becomes ``sys.path[0]`` in that process: the prefix keeps them from
shadowing a standard-library or framework module.
"""
