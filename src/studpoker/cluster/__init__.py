"""The room on many machines (issue 15; docs/cluster.md): the message bus between gateways and
table workers (:mod:`.bus`, :mod:`.subjects`), the NATS users (:mod:`.nats_config`) and the
throwaway servers of a trial cluster (:mod:`.services`)."""
