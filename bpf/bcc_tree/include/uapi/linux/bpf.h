/* Included by BCC; nothing in it is used (bpf/bcc_tree/README.md). */
