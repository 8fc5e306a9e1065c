"""What every Yardstick HTTP service shares at its edge.

- ``problem_details``: the RFC 9457 error shape;
- ``input_guard``: the ASGI middleware refusing what no endpoint can store (NUL, NaN, lone
  surrogates, oversized bodies) before routing.
"""
