"""What every Yardstick HTTP service shares at its edge.

- ``problem_details``: the RFC 9457 error shape;
- ``input_guard``: the ASGI middleware refusing what no endpoint can store (NUL, NaN, lone
  surrogates, oversized bodies) before routing;
- ``outbound_guard``: which addresses a service may call on a user's behalf (``http`` targets,
  upstream search): no loopback, private, link-local or reserved address unless
  ``TARGET_ALLOWED_NETWORKS`` allows it.
"""
