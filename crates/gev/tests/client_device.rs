//! The sans-IO GVCP client against the sans-IO device, with no network in
//! between: a lossy "wire" that drops chosen datagrams, and a clock that
//! moves only when the test says so.

use std::net::{Ipv4Addr, SocketAddrV4};

use linerate_gev::client::{
    ClientError, RequestIds, Transaction, TransactionConfig, TransactionPoll,
};
use linerate_gev::device::registers::{bootstrap as bs, device as dev};
use linerate_gev::device::{Device, DeviceConfig, DeviceIdentity};
use linerate_wire::gvcp::{Ack, Command, RegisterWrite};
use linerate_wire::Status;

const HOST: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(169, 254, 10, 2), 50_000);

/// Runs one command to completion; `drop` decides per datagram (host to
/// device `true`, device to host `false`, attempt number) whether it is lost.
fn run(
    device: &mut Device,
    ids: &mut RequestIds,
    command: Command,
    now: &mut u64,
    drop: &dyn Fn(bool, u32) -> bool,
) -> Result<Ack, ClientError> {
    let (mut t, mut datagram) =
        Transaction::start(command, ids, TransactionConfig::default(), *now).expect("encodes");
    let mut attempt = 0;
    loop {
        attempt += 1;
        if !drop(true, attempt) {
            let r = device.handle_datagram(&datagram, HOST, *now);
            if let Some(reply) = r.reply {
                if !drop(false, attempt) {
                    t.handle_datagram(&reply.datagram, *now);
                }
            }
        }
        loop {
            match t.poll_transmit(*now) {
                TransactionPoll::Done(r) => return r.map(|a| a.ack),
                TransactionPoll::Resend(d) => {
                    datagram = d;
                    break;
                }
                TransactionPoll::WaitUntil(at) => *now = at,
            }
        }
    }
}

fn device() -> Device {
    Device::new(DeviceIdentity::default(), DeviceConfig::default()).expect("device")
}

#[test]
fn control_and_configuration_over_a_clean_wire() {
    let mut d = device();
    let mut ids = RequestIds::default();
    let mut now = 0;
    let never = |_: bool, _: u32| false;
    let w = |address, value| RegisterWrite { address, value };
    let ack = run(
        &mut d,
        &mut ids,
        Command::WriteReg {
            writes: vec![
                w(bs::CONTROL_CHANNEL_PRIVILEGE, bs::ccp::CONTROL_ACCESS),
                w(dev::WIDTH, 640),
            ],
        },
        &mut now,
        &never,
    );
    assert_eq!(ack, Ok(Ack::WriteReg { index: 2 }));
    let ack = run(
        &mut d,
        &mut ids,
        Command::ReadReg {
            addresses: vec![dev::WIDTH, dev::PAYLOAD_SIZE],
        },
        &mut now,
        &never,
    );
    assert_eq!(
        ack,
        Ok(Ack::ReadReg {
            values: vec![640, 640 * 768]
        })
    );
    let ack = run(
        &mut d,
        &mut ids,
        Command::WriteReg {
            writes: vec![w(dev::WIDTH, 3)],
        },
        &mut now,
        &never,
    );
    assert_eq!(
        ack,
        Err(ClientError::Refused {
            command: 0x0082,
            status: Status::INVALID_PARAMETER
        })
    );
}

#[test]
fn lost_commands_and_lost_acks_are_retried() {
    let mut d = device();
    let mut ids = RequestIds::default();
    let mut now = 0;
    // The first command datagram is lost; then the first ack is lost.
    let lose_first_command = |to_device: bool, attempt: u32| to_device && attempt == 1;
    let ack = run(
        &mut d,
        &mut ids,
        Command::ReadReg {
            addresses: vec![bs::VERSION],
        },
        &mut now,
        &lose_first_command,
    );
    assert_eq!(
        ack,
        Ok(Ack::ReadReg {
            values: vec![0x0002_0000]
        })
    );
    assert_eq!(now, 200_000_000, "one ack timeout passed");
    let lose_first_ack = |to_device: bool, attempt: u32| !to_device && attempt == 1;
    let ack = run(
        &mut d,
        &mut ids,
        Command::ReadReg {
            addresses: vec![bs::VERSION],
        },
        &mut now,
        &lose_first_ack,
    );
    assert_eq!(
        ack,
        Ok(Ack::ReadReg {
            values: vec![0x0002_0000]
        })
    );
    // Everything lost: a typed timeout after three attempts.
    let all = |_: bool, _: u32| true;
    let ack = run(
        &mut d,
        &mut ids,
        Command::ReadReg {
            addresses: vec![bs::VERSION],
        },
        &mut now,
        &all,
    );
    assert!(
        matches!(ack, Err(ClientError::Timeout { attempts: 3, .. })),
        "{ack:?}"
    );
}
