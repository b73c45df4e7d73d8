"""The package as it stood before chapter 6's module was written: no context_packet yet.

Put this folder first on PYTHONPATH to replay the red step of docs/chapters/06-context-packet/
verification.md: the chapter's tests then fail to import harnessbook.context_packet.
"""
